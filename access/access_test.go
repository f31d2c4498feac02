package access_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/access"
	"switchboard/auth"
	"switchboard/database"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
)

func newService(t *testing.T) *access.Service {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, database.Options{URL: testenv.PostgresURL(t), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.AutoMigrate(ctx); err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.NewTokens([]byte("secret"), auth.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mr := miniredis.RunT(t)
	return &access.Service{
		Client: db.Client, SQL: db.SQL, Postgres: db.Postgres(), Tokens: tokens,
		Redis: redis.NewClient(&redis.Options{Addr: mr.Addr()}),
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func TestBootstrapIsIdempotentAndSeedsOrganization(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	first, err := access.Bootstrap(ctx, s.Client, "Admin@Example.com", "", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || first.Password == "" || first.Email != "admin@example.com" {
		t.Fatalf("first start: %+v", first)
	}
	again, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "", "Acme")
	if err != nil || again.Created {
		t.Fatalf("second start: %+v %v", again, err)
	}
	org, err := s.Client.Organization.Query().Only(rule.Bypass(ctx, "test"))
	if err != nil {
		t.Fatal(err)
	}
	sctx := viewer.SystemContext(ctx, org.ID)
	roles, err := s.Client.Role.Query().Where(role.IsSystem(true)).WithPermissions().All(sctx)
	if err != nil || len(roles) != 3 {
		t.Fatalf("system roles: %d %v", len(roles), err)
	}
	for _, r := range roles {
		want := 0
		for _, sr := range access.SystemRoles() {
			if sr.Name == r.Name {
				want = len(sr.Permissions)
			}
		}
		if len(r.Edges.Permissions) != want || want == 0 {
			t.Errorf("%s has %d permissions, want %d", r.Name, len(r.Edges.Permissions), want)
		}
	}
	if n, err := s.Client.ChatbotSettings.Query().Count(sctx); err != nil || n != 1 {
		t.Fatalf("chatbot settings: %d %v", n, err)
	}
	// Seeding again adds nothing.
	if err := access.SeedOrganization(ctx, s.Client, org.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Client.Role.Query().Count(sctx); n != 3 {
		t.Fatalf("roles after reseeding: %d", n)
	}
	if _, err := s.Login(ctx, "admin@example.com", first.Password, "127.0.0.1"); err != nil {
		t.Fatalf("login with the generated password: %v", err)
	}
}

func TestWSTokenWorksOnce(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	res, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "a-long-admin-password", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Login(ctx, res.Email, "a-long-admin-password", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.IssueWSToken(sess.Viewer)
	if err != nil {
		t.Fatal(err)
	}
	used := auth.NewRedisUsedTokens(s.Redis.(*redis.Client), "t:")
	v, err := s.ConsumeWSToken(ctx, used, tok)
	if err != nil || v.UserID != sess.Viewer.UserID {
		t.Fatalf("first use: %v %v", v, err)
	}
	if _, err := s.ConsumeWSToken(ctx, used, tok); err == nil {
		t.Fatal("second use accepted")
	}
	if _, err := s.ConsumeWSToken(ctx, used, sess.AccessToken); err == nil {
		t.Fatal("an access token was accepted as a ws token")
	}
	if _, err := s.AuthenticateAccess(ctx, tok, uuid.Nil); err == nil {
		t.Fatal("a ws token was accepted as an access token")
	}
}
