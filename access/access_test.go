package access_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/permission"
	"switchboard/ent/refreshtoken"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
)

func newService(t *testing.T) *access.Service {
	t.Helper()
	db := testkit.OpenDB(t)
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

// adminSession bootstraps the admin and logs in.
func adminSession(t *testing.T, s *access.Service) *access.Session {
	t.Helper()
	ctx := context.Background()
	res, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "a-long-admin-password", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Login(ctx, res.Email, "a-long-admin-password", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func TestWSTokenWorksOnce(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	sess := adminSession(t, s)
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

// TestLoginFloodCannotLockOutTheOwner: failures are counted per (email,
// address) and per address, so wrong passwords sent from other addresses
// never stop the owner logging in from theirs, while each address is still
// throttled.
func TestLoginFloodCannotLockOutTheOwner(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	res, err := access.Bootstrap(ctx, s.Client, "owner@example.com", "the-owners-password", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	const wrong = "a-wrong-password-000"
	for i := range 60 {
		addr := fmt.Sprintf("203.0.113.%d", i)
		if _, err := s.Login(ctx, res.Email, wrong, addr); apperr.CodeOf(err) != apperr.Unauthenticated {
			t.Fatalf("attempt from %s: %v", addr, err)
		}
	}
	if _, err := s.Login(ctx, res.Email, "the-owners-password", "198.51.100.7"); err != nil {
		t.Fatalf("the owner is locked out by failures from other addresses: %v", err)
	}

	t.Run("OneAddressOneAccount", func(t *testing.T) {
		for range 10 {
			_, _ = s.Login(ctx, res.Email, wrong, "192.0.2.10")
		}
		if _, err := s.Login(ctx, res.Email, "the-owners-password", "192.0.2.10"); apperr.CodeOf(err) != apperr.TooMany {
			t.Fatalf("11th attempt from one address: %v, want rate_limited", err)
		}
		if _, err := s.Login(ctx, res.Email, "the-owners-password", "192.0.2.11"); err != nil {
			t.Fatalf("the owner's own address: %v", err)
		}
	})
	t.Run("OneAddressManyAccounts", func(t *testing.T) {
		for i := range 50 {
			_, _ = s.Login(ctx, fmt.Sprintf("guess-%d@example.com", i), wrong, "192.0.2.20")
		}
		if _, err := s.Login(ctx, res.Email, "the-owners-password", "192.0.2.20"); apperr.CodeOf(err) != apperr.TooMany {
			t.Fatalf("after 50 failures from one address: %v, want rate_limited", err)
		}
	})
}

// TestEnsureSystemRolesAddsNewPermissions: a permission that joins the
// catalogue after an organization was seeded reaches that organization's
// system roles whose definition holds it, once; a permission an
// administrator took away from a system role stays away.
func TestEnsureSystemRolesAddsNewPermissions(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	if _, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "a-long-admin-password", "Acme"); err != nil {
		t.Fatal(err)
	}
	bctx := rule.Bypass(ctx, "test")
	roleOf := func(name string) *ent.Role {
		r, err := s.Client.Role.Query().Where(role.Name(name), role.IsSystem(true)).Only(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	holds := func(r *ent.Role, resource, action string) bool {
		ok, err := s.Client.Role.Query().Where(role.ID(r.ID), role.HasPermissionsWith(
			permission.Resource(resource), permission.Action(action))).Exist(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	agent, manager := roleOf(access.RoleAgent), roleOf(access.RoleManager)
	// As if canned_responses:read were not in the catalogue when Acme was
	// seeded, and an administrator took contacts:delete from Managers.
	if _, err := s.Client.Permission.Delete().Where(permission.Resource("canned_responses"), permission.Action("read")).Exec(bctx); err != nil {
		t.Fatal(err)
	}
	del, err := s.Client.Permission.Query().Where(permission.Resource("contacts"), permission.Action("delete")).Only(bctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Client.Role.UpdateOneID(manager.ID).RemovePermissionIDs(del.ID).Exec(bctx); err != nil {
		t.Fatal(err)
	}
	for range 2 { // two starts
		if _, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "a-long-admin-password", "Acme"); err != nil {
			t.Fatal(err)
		}
	}
	if !holds(agent, "canned_responses", "read") || !holds(manager, "canned_responses", "read") {
		t.Error("the new permission did not reach the system roles that define it")
	}
	if holds(manager, "contacts", "delete") {
		t.Error("a start gave back a permission an administrator took away")
	}
}

// TestDerivedPermissionKeepsWhatRolesCould: transfers:manage split from
// contacts:update; when it joins the catalogue of a database seeded
// before it, every role holding contacts:update (custom roles too) gets
// it, and a role without contacts:update does not.
func TestDerivedPermissionKeepsWhatRolesCould(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	if _, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "a-long-admin-password", "Acme"); err != nil {
		t.Fatal(err)
	}
	bctx := rule.Bypass(ctx, "test")
	org, err := s.Client.Organization.Query().Only(bctx)
	if err != nil {
		t.Fatal(err)
	}
	permOf := func(resource, action string) *ent.Permission {
		p, err := s.Client.Permission.Query().Where(permission.Resource(resource), permission.Action(action)).Only(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	customRole := func(name string, perms ...*ent.Permission) *ent.Role {
		r, err := s.Client.Role.Create().SetName(name).SetOrganizationID(org.ID).AddPermissions(perms...).Save(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	updater := customRole("Lead", permOf("contacts", "read"), permOf("contacts", "update"))
	reader := customRole("Viewer", permOf("contacts", "read"))
	// As if the database predated transfers:manage.
	if _, err := s.Client.Permission.Delete().Where(permission.Resource("transfers"), permission.Action("manage")).Exec(bctx); err != nil {
		t.Fatal(err)
	}
	if _, err := access.Bootstrap(ctx, s.Client, "admin@example.com", "a-long-admin-password", "Acme"); err != nil {
		t.Fatal(err)
	}
	holds := func(id uuid.UUID) bool {
		ok, err := s.Client.Role.Query().Where(role.ID(id), role.HasPermissionsWith(
			permission.Resource("transfers"), permission.Action("manage"))).Exist(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	system := func(name string) uuid.UUID {
		r, err := s.Client.Role.Query().Where(role.Name(name), role.IsSystem(true)).Only(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	for name, c := range map[string]struct {
		id   uuid.UUID
		want bool
	}{
		"custom role with contacts:update":    {updater.ID, true},
		"custom role without contacts:update": {reader.ID, false},
		"Admin":                               {system(access.RoleAdmin), true},
		"Manager":                             {system(access.RoleManager), true},
		"Agent":                               {system(access.RoleAgent), false},
	} {
		if got := holds(c.id); got != c.want {
			t.Errorf("%s holds transfers:manage = %v, want %v", name, got, c.want)
		}
	}
}

// TestPruneExpiredRefreshTokens: the sweep deletes the refresh tokens
// expired for longer than the grace, and nothing a live session needs.
func TestPruneExpiredRefreshTokens(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	sess := adminSession(t, s)
	bctx := rule.Bypass(ctx, "test")
	expired := func(ago time.Duration) uuid.UUID {
		t.Helper()
		rt, err := s.Client.RefreshToken.Create().SetUserID(sess.Viewer.UserID).SetOrganizationID(sess.Viewer.OrgID).
			SetFamilyID(uuid.New()).SetExpiresAt(time.Now().Add(-ago)).Save(bctx)
		if err != nil {
			t.Fatal(err)
		}
		return rt.ID
	}
	gone, inGrace := expired(2*time.Hour), expired(30*time.Minute)

	n, err := s.PruneExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("PruneExpired = %d, %v; want 1", n, err)
	}
	for id, want := range map[uuid.UUID]bool{gone: false, inGrace: true} {
		if ok, err := s.Client.RefreshToken.Query().Where(refreshtoken.ID(id)).Exist(bctx); err != nil || ok != want {
			t.Errorf("token expired: stored %v (%v), want %v", ok, err, want)
		}
	}
	if _, err := s.AuthenticateAccess(ctx, sess.AccessToken, uuid.Nil); err != nil {
		t.Fatalf("the live session's access token after the prune: %v", err)
	}
	if _, err := s.Refresh(ctx, sess.RefreshToken); err != nil {
		t.Fatalf("the live session's refresh after the prune: %v", err)
	}
}
