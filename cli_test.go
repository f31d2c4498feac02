package main

import (
	"bytes"
	"context"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/auth"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/migrate/migrations"
	"switchboard/ent/organizationmember"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/internal/testenv"
)

// TestCLI: --help describes the commands without starting anything;
// check-config prints the effective configuration with secrets masked;
// an unknown command or a stray argument is refused.
func TestCLI(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("DATABASE_URL", "postgres://app:hunter2@db.internal:5432/switchboard")
	t.Setenv("TURN_SECRET", "turn-shared-secret")
	tests := []struct {
		name     string
		args     []string
		wantErr  bool
		contains []string
		absent   []string
	}{
		{name: "Help", args: []string{"--help"}, contains: []string{"serve", "http", "worker", "check-config", "migrate", "create-admin"}},
		{name: "ServeHelp", args: []string{"serve", "--help"}, contains: []string{"Run the HTTP server and the background workers"}},
		{name: "CheckConfig", args: []string{"check-config"},
			contains: []string{"DATABASE_URL=[set]\n", "TURN_SECRET=[set]\n", "LISTEN_ADDR=:8080\n", "RUN_MODE=all\n"},
			absent:   []string{"hunter2", "turn-shared-secret"}},
		{name: "UnknownCommand", args: []string{"bogus"}, wantErr: true},
		{name: "StrayArgument", args: []string{"serve", "now"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand(&out)
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v; output:\n%s", err, tt.wantErr, out.String())
			}
			for _, s := range tt.contains {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(out.String(), s) {
					t.Errorf("output shows %q", s)
				}
			}
		})
	}
}

// TestCheckConfigRefusesBadValues: a bad setting is reported, not
// printed as if it were fine.
func TestCheckConfigRefusesBadValues(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("RUN_MODE", "sometimes")
	var out bytes.Buffer
	cmd := newRootCommand(&out)
	cmd.SetArgs([]string{"check-config"})
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "RUN_MODE") {
		t.Fatalf("err = %v, want the RUN_MODE problem", err)
	}
	if out.Len() != 0 {
		t.Fatalf("printed a configuration that does not load:\n%s", out.String())
	}
}

// runCLI runs the command line with args and stdin, returning what it
// printed.
func runCLI(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newRootCommand(&out)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// TestMigrateCommands: status lists every embedded migration as pending on
// an empty database, up applies them all, down needs --yes and rolls back
// exactly one, and up applies it again.
func TestMigrateCommands(t *testing.T) {
	url := testenv.PostgresURL(t)
	if url == "" {
		t.Skip("versioned migrations are PostgreSQL-only; PostgreSQL is not available")
	}
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("DATABASE_URL", url)
	t.Setenv("LOG_LEVEL", "error")
	names, err := fs.Glob(migrations.FS, "*.up.sql")
	if err != nil || len(names) < 2 {
		t.Fatalf("embedded migrations: %v %v", names, err)
	}
	last := strings.SplitN(names[len(names)-1], "_", 2)[0]
	prev := strings.SplitN(names[len(names)-2], "_", 2)[0]
	steps := []struct {
		args     []string
		wantErr  string
		contains []string
	}{
		{args: []string{"migrate", "status"}, contains: []string{"current version 0, " + strconv.Itoa(len(names)) + " pending", "init", "pending"}},
		{args: []string{"migrate", "up"}, contains: []string{"applied " + strconv.Itoa(len(names)) + " migration(s); database at version " + last}},
		{args: []string{"migrate", "status"}, contains: []string{"current version " + last + ", 0 pending"}},
		{args: []string{"migrate", "up"}, contains: []string{"applied 0 migration(s)"}},
		{args: []string{"migrate", "down"}, wantErr: "--yes"},
		{args: []string{"migrate", "status"}, contains: []string{", 0 pending"}},
		{args: []string{"migrate", "down", "--yes"}, contains: []string{"rolled back version " + last + "; database at version " + prev}},
		{args: []string{"migrate", "status"}, contains: []string{"current version " + prev + ", 1 pending"}},
		{args: []string{"migrate", "up"}, contains: []string{"applied 1 migration(s); database at version " + last}},
		{args: []string{"migrate", "sideways"}, wantErr: "unknown command"},
	}
	for _, s := range steps {
		out, err := runCLI(t, "", s.args...)
		if s.wantErr != "" {
			if err == nil || !strings.Contains(err.Error()+out, s.wantErr) {
				t.Fatalf("%v: err = %v, want %q; output:\n%s", s.args, err, s.wantErr, out)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v; output:\n%s", s.args, err, out)
		}
		for _, want := range s.contains {
			if !strings.Contains(out, want) {
				t.Fatalf("%v: output lacks %q:\n%s", s.args, want, out)
			}
		}
	}
}

// TestCreateAdmin: the command creates a super admin who is Admin of the
// named organization (created, or joined when it exists), on PostgreSQL and
// on the embedded SQLite file; the password comes from stdin or is
// generated and printed once; an existing email, a bad address and a
// short password are refused without writing anything.
func TestCreateAdmin(t *testing.T) {
	for _, engine := range []string{"postgres", "sqlite"} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("DATA_DIR", dir)
			t.Setenv("LOG_LEVEL", "error")
			url := ""
			if engine == "postgres" {
				if url = testenv.PostgresURL(t); url == "" {
					t.Skip("PostgreSQL is not available")
				}
			}
			t.Setenv("DATABASE_URL", url)
			out, err := runCLI(t, "correct horse battery\n", "create-admin", "--email", " Ops@Example.com ", "--org", "Acme", "--password-stdin")
			if err != nil || !strings.Contains(out, "super admin ops@example.com created") || !strings.Contains(out, `created organization "Acme"`) || strings.Contains(out, "password:") {
				t.Fatalf("first admin: %v\n%s", err, out)
			}
			out, err = runCLI(t, "", "create-admin", "--email", "second@example.com", "--org", "acme")
			if err != nil || !strings.Contains(out, `joined organization "Acme"`) {
				t.Fatalf("second admin: %v\n%s", err, out)
			}
			generated := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out)
			if generated == nil {
				t.Fatalf("no generated password printed:\n%s", out)
			}
			refusals := []struct {
				stdin, want string
				args        []string
			}{
				{args: []string{"--email", "OPS@example.com"}, want: "already exists"},
				{args: []string{"--email", "not-an-address"}, want: "not a valid address"},
				{args: []string{"--email", "short@example.com", "--password-stdin"}, stdin: "tiny\n", want: "at least 12"},
				{args: []string{"--email", "empty@example.com", "--password-stdin"}, want: "no password"},
				{args: []string{"--org", "Acme"}, want: `"email" not set`},
			}
			for _, r := range refusals {
				out, err := runCLI(t, r.stdin, append([]string{"create-admin"}, r.args...)...)
				if err == nil || !strings.Contains(err.Error(), r.want) {
					t.Fatalf("%v: err = %v, want %q\n%s", r.args, err, r.want, out)
				}
			}

			ctx := context.Background()
			db, err := database.Open(ctx, database.Options{URL: url, DataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			bctx := rule.Bypass(ctx, "test")
			users, err := db.Client.User.Query().Order(ent.Asc(user.FieldEmail)).All(bctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(users) != 2 || users[0].Email != "ops@example.com" || users[1].Email != "second@example.com" {
				t.Fatalf("users = %v", users)
			}
			passwords := map[string]string{"ops@example.com": "correct horse battery", "second@example.com": generated[1]}
			for _, u := range users {
				if !u.IsSuperAdmin || !auth.CheckPassword(u.PasswordHash, passwords[u.Email]) {
					t.Errorf("%s: super admin %v, password matches %v", u.Email, u.IsSuperAdmin, auth.CheckPassword(u.PasswordHash, passwords[u.Email]))
				}
				m, err := db.Client.OrganizationMember.Query().Where(organizationmember.UserID(u.ID)).WithRole().WithOrganization().Only(bctx)
				if err != nil {
					t.Fatalf("%s membership: %v", u.Email, err)
				}
				if m.Edges.Role.Name != access.RoleAdmin || m.Edges.Organization.Name != "Acme" || !m.IsDefault {
					t.Errorf("%s: role %s in %s (default %v), want Admin of Acme", u.Email, m.Edges.Role.Name, m.Edges.Organization.Name, m.IsDefault)
				}
			}
			if n := db.Client.Organization.Query().CountX(bctx); n != 1 {
				t.Errorf("%d organizations, want 1", n)
			}
		})
	}
}
