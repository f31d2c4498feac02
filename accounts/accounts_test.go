package accounts_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/internal/testkit"
	"switchboard/provider"
	"switchboard/secrets"
)

// controls records the control messages the service publishes.
type controls struct {
	mu   sync.Mutex
	sent []string
}

func (c *controls) PublishControl(_ context.Context, name string, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, name+" "+string(body))
}

// take returns the messages published since the last take.
func (c *controls) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.sent
	c.sent = nil
	return out
}

// fixture is the service on a migrated database, acting as a member of
// one organization (ctx) beside another organization (other).
type fixture struct {
	s     *accounts.Service
	box   *secrets.Box
	bus   *controls
	ctx   context.Context
	other context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.OpenDB(t).Client
	box, err := secrets.NewBox("accounts-test")
	if err != nil {
		t.Fatal(err)
	}
	org, _ := testkit.NewOrg(t, db, "acme")
	other, _ := testkit.NewOrg(t, db, "globex")
	bus := &controls{}
	return &fixture{s: &accounts.Service{Client: db, Secrets: box, Bus: bus}, box: box, bus: bus,
		ctx: testkit.NewMember(t, db, org, "Ada Admin"), other: testkit.NewMember(t, db, other, "Otto Other")}
}

func ptr[T any](v T) *T { return &v }

// The operations run in a transaction of their own, as the transports
// run them (a refused create or update leaves nothing behind).

func (f *fixture) create(ctx context.Context, in accounts.CreateInput) (v *accounts.View, err error) {
	err = database.InTx(ctx, f.s.Client, func(ctx context.Context, _ *ent.Client) error {
		v, err = f.s.Create(ctx, in)
		return err
	})
	return v, err
}

func (f *fixture) update(ctx context.Context, id uuid.UUID, in accounts.UpdateInput) (v *accounts.View, err error) {
	err = database.InTx(ctx, f.s.Client, func(ctx context.Context, _ *ent.Client) error {
		v, err = f.s.Update(ctx, id, in)
		return err
	})
	return v, err
}

func (f *fixture) delete(ctx context.Context, id uuid.UUID) error {
	return database.InTx(ctx, f.s.Client, func(ctx context.Context, _ *ent.Client) error { return f.s.Delete(ctx, id) })
}

// input is a valid new account.
func input(name, phoneID, businessID string) accounts.CreateInput {
	return accounts.CreateInput{Name: name, PhoneID: phoneID, BusinessID: businessID, AccessToken: "EAA-token"}
}

func (f *fixture) mustCreate(t *testing.T, ctx context.Context, in accounts.CreateInput) *accounts.View {
	t.Helper()
	v, err := f.create(ctx, in)
	if err != nil {
		t.Fatalf("create %s: %v", in.Name, err)
	}
	return v
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	f.mustCreate(t, f.ctx, input("Main", "1001", "5001"))
	f.mustCreate(t, f.other, input("Theirs", "2001", "6001"))
	f.bus.take()
	with := func(change func(*accounts.CreateInput)) accounts.CreateInput {
		in := input("Second", "1002", "5001")
		change(&in)
		return in
	}
	tests := []struct {
		name string
		in   accounts.CreateInput
		code apperr.Code
		msg  string
	}{
		{"ErrNameRequired", with(func(in *accounts.CreateInput) { in.Name = " " }), apperr.Invalid, "name is required"},
		{"ErrNameTooLong", with(func(in *accounts.CreateInput) { in.Name = strings.Repeat("n", 201) }), apperr.Invalid, "name must be at most 200 characters"},
		{"ErrNameNUL", with(func(in *accounts.CreateInput) { in.Name = "a\x00" }), apperr.Invalid, "name must not contain NUL characters"},
		{"ErrPhoneIDRequired", with(func(in *accounts.CreateInput) { in.PhoneID = "" }), apperr.Invalid, "phone_id is required"},
		{"ErrPhoneIDLeadingZero", with(func(in *accounts.CreateInput) { in.PhoneID = "01002" }), apperr.Invalid, "phone_id must be the platform's numeric id"},
		{"ErrPhoneIDNotDigits", with(func(in *accounts.CreateInput) { in.PhoneID = "10a2" }), apperr.Invalid, "phone_id must be the platform's numeric id"},
		{"ErrBusinessIDRequired", with(func(in *accounts.CreateInput) { in.BusinessID = " " }), apperr.Invalid, "business_id is required"},
		{"ErrAccessTokenRequired", with(func(in *accounts.CreateInput) { in.AccessToken = " " }), apperr.Invalid, "access_token is required"},
		{"ErrAppID", with(func(in *accounts.CreateInput) { in.AppID = ptr("app-1") }), apperr.Invalid, "app_id must be the platform's numeric id"},
		{"ErrAPIVersion", with(func(in *accounts.CreateInput) { in.APIVersion = ptr("21.0") }), apperr.Invalid, "api_version must look like v21.0"},
		{"ErrVerifyTokenNUL", with(func(in *accounts.CreateInput) { in.WebhookVerifyToken = ptr("a\x00") }), apperr.Invalid, "webhook_verify_token must not contain NUL"},
		{"ErrDuplicateName", with(func(in *accounts.CreateInput) { in.Name = " Main " }), apperr.Invalid, `an account named "Main" already exists`},
		{"ConflictPhoneIDHeld", with(func(in *accounts.CreateInput) { in.PhoneID = "1001" }), apperr.Conflict, "this phone_id is already connected"},
		{"ConflictPhoneIDHeldElsewhere", with(func(in *accounts.CreateInput) { in.PhoneID = "2001" }), apperr.Conflict, "this phone_id is already connected"},
		{"ConflictBusinessIDHeldElsewhere", with(func(in *accounts.CreateInput) { in.BusinessID = "6001" }), apperr.Conflict,
			"this business_id (WhatsApp Business Account) is connected in another organization"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.create(f.ctx, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if got := f.bus.take(); len(got) != 0 {
				t.Errorf("a refused account announced %v", got)
			}
		})
	}

	t.Run("OK", func(t *testing.T) {
		v, err := f.create(f.ctx, with(func(in *accounts.CreateInput) {
			in.Name, in.AccessToken, in.AppSecret, in.AppID = " Second ", " EAA-second ", ptr("s3cret"), ptr("777")
		}))
		if err != nil {
			t.Fatal(err)
		}
		if v.Name != "Second" || v.APIVersion != provider.DefaultAPIVersion || v.WebhookVerifyToken == "" || v.AppID != "777" ||
			v.IsDefaultIncoming || v.IsDefaultOutgoing || !accounts.HasAppSecret(v.Account) || v.CreatedByName != "Ada Admin" {
			t.Errorf("created %+v (created by %q)", v.Account, v.CreatedByName)
		}
		creds, err := accounts.Credentials(f.box, v.Account)
		if err != nil || creds.AccessToken != "EAA-second" || creds.PhoneID != "1002" || creds.BusinessID != "5001" {
			t.Errorf("credentials %+v, %v", creds, err)
		}
		if got := f.bus.take(); !slices.Equal(got, []string{accounts.ChangedMessage + " " + v.ID.String()}) {
			t.Errorf("announced %v", got)
		}
	})
}

// TestDefaults: the organization's first account holds both defaults; a
// default moves to the account made the default, cannot be unset, and
// passes to the oldest account left when its holder is deleted.
func TestDefaults(t *testing.T) {
	f := newFixture(t)
	first := f.mustCreate(t, f.ctx, input("First", "1001", "5001"))
	second := f.mustCreate(t, f.ctx, input("Second", "1002", "5001"))
	f.mustCreate(t, f.other, input("Elsewhere", "2001", "6001"))
	third := f.mustCreate(t, f.ctx, accounts.CreateInput{Name: "Third", PhoneID: "1003", BusinessID: "5001",
		AccessToken: "t", IsDefaultIncoming: ptr(true)})
	defaults := func(t *testing.T, ctx context.Context, want map[string]string) {
		t.Helper()
		vs, err := f.s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, v := range vs {
			if v.IsDefaultIncoming {
				got["in"] += v.Name
			}
			if v.IsDefaultOutgoing {
				got["out"] += v.Name
			}
		}
		if len(got) != len(want) || got["in"] != want["in"] || got["out"] != want["out"] {
			t.Errorf("defaults %v, want %v", got, want)
		}
	}
	defaults(t, f.ctx, map[string]string{"in": "Third", "out": "First"})
	defaults(t, f.other, map[string]string{"in": "Elsewhere", "out": "Elsewhere"})

	_, err := f.update(f.ctx, third.ID, accounts.UpdateInput{IsDefaultIncoming: ptr(false)})
	testkit.ExpectError(t, err, apperr.Invalid, "is_default_incoming cannot be unset")
	_, err = f.update(f.ctx, first.ID, accounts.UpdateInput{IsDefaultOutgoing: ptr(false)})
	testkit.ExpectError(t, err, apperr.Invalid, "is_default_outgoing cannot be unset")
	if _, err := f.update(f.ctx, second.ID, accounts.UpdateInput{IsDefaultOutgoing: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	defaults(t, f.ctx, map[string]string{"in": "Third", "out": "Second"})

	testkit.ExpectError(t, f.delete(f.ctx, third.ID), "", "")
	defaults(t, f.ctx, map[string]string{"in": "First", "out": "Second"})
	testkit.ExpectError(t, f.delete(f.ctx, second.ID), "", "")
	defaults(t, f.ctx, map[string]string{"in": "First", "out": "First"})
	defaults(t, f.other, map[string]string{"in": "Elsewhere", "out": "Elsewhere"})
}

// TestListIsTenantIsolated: an organization lists, reads, changes and
// deletes its own accounts only.
func TestListIsTenantIsolated(t *testing.T) {
	f := newFixture(t)
	f.mustCreate(t, f.ctx, input("Beta", "1001", "5001"))
	f.mustCreate(t, f.ctx, input("Alpha", "1002", "5001"))
	theirs := f.mustCreate(t, f.other, input("Gamma", "2001", "6001"))
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want []string
	}{
		{"Own", f.ctx, []string{"Alpha", "Beta"}},
		{"Other", f.other, []string{"Gamma"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := f.s.List(tt.ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		_, err := f.s.Get(f.ctx, theirs.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "")
		_, err = f.update(f.ctx, theirs.ID, accounts.UpdateInput{Name: ptr("Mine")})
		testkit.ExpectError(t, err, apperr.NotFound, "")
		testkit.ExpectError(t, f.delete(f.ctx, theirs.ID), apperr.NotFound, "")
		if v, err := f.s.Get(f.other, theirs.ID); err != nil || v.Name != "Gamma" {
			t.Errorf("the other organization's account: %v", err)
		}
	})
}

func TestUpdate(t *testing.T) {
	f := newFixture(t)
	main := f.mustCreate(t, f.ctx, input("Main", "1001", "5001"))
	f.mustCreate(t, f.ctx, input("Spare", "1002", "5001"))
	f.mustCreate(t, f.other, input("Theirs", "2001", "6001"))
	f.bus.take()
	tests := []struct {
		name string
		in   accounts.UpdateInput
		code apperr.Code
		msg  string
	}{
		{"ErrNameRequired", accounts.UpdateInput{Name: ptr("")}, apperr.Invalid, "name is required"},
		{"ErrDuplicateName", accounts.UpdateInput{Name: ptr("Spare")}, apperr.Invalid, `an account named "Spare" already exists`},
		{"ErrPhoneID", accounts.UpdateInput{PhoneID: ptr("0")}, apperr.Invalid, "phone_id must be the platform's numeric id"},
		{"ErrBusinessIDRequired", accounts.UpdateInput{BusinessID: ptr("")}, apperr.Invalid, "business_id is required"},
		{"ErrVerifyTokenEmpty", accounts.UpdateInput{WebhookVerifyToken: ptr(" ")}, apperr.Invalid, "webhook_verify_token cannot be empty"},
		{"ErrAPIVersion", accounts.UpdateInput{APIVersion: ptr("latest")}, apperr.Invalid, "api_version must look like v21.0"},
		{"ConflictPhoneIDHeldElsewhere", accounts.UpdateInput{PhoneID: ptr("2001")}, apperr.Conflict, "this phone_id is already connected"},
		{"ConflictBusinessIDHeldElsewhere", accounts.UpdateInput{BusinessID: ptr("6001")}, apperr.Conflict, "connected in another organization"},
		{"NotFound", accounts.UpdateInput{Name: ptr("X")}, apperr.NotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := main.ID
			if tt.code == apperr.NotFound {
				id = uuid.New()
			}
			_, err := f.update(f.ctx, id, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if got := f.bus.take(); len(got) != 0 {
				t.Errorf("a refused update announced %v", got)
			}
		})
	}
	t.Run("BlankTokenKeepsIt", func(t *testing.T) {
		v, err := f.update(f.ctx, main.ID, accounts.UpdateInput{AccessToken: ptr(" "), APIVersion: ptr("v22.0")})
		if err != nil {
			t.Fatal(err)
		}
		if creds, _ := accounts.Credentials(f.box, v.Account); creds.AccessToken != "EAA-token" || creds.APIVersion != "v22.0" {
			t.Errorf("credentials %+v", creds)
		}
		v, err = f.update(f.ctx, main.ID, accounts.UpdateInput{AccessToken: ptr(" EAA-new ")})
		if err != nil {
			t.Fatal(err)
		}
		if creds, _ := accounts.Credentials(f.box, v.Account); creds.AccessToken != "EAA-new" {
			t.Errorf("replaced token %q", creds.AccessToken)
		}
		if got := f.bus.take(); len(got) != 2 {
			t.Errorf("two updates announced %v", got)
		}
	})
	// A business account id the organization no longer uses is free for
	// another organization.
	t.Run("MovingOffABusinessIDReleasesIt", func(t *testing.T) {
		for _, a := range []*accounts.View{main} {
			if _, err := f.update(f.ctx, a.ID, accounts.UpdateInput{BusinessID: ptr("5002")}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := f.create(f.other, input("Claim", "2002", "5001"))
		testkit.ExpectError(t, err, apperr.Conflict, "connected in another organization") // Spare still uses it
		vs, _ := f.s.List(f.ctx)
		for _, v := range vs {
			if v.Name == "Spare" {
				testkit.ExpectError(t, f.delete(f.ctx, v.ID), "", "")
			}
		}
		f.mustCreate(t, f.other, input("Claim", "2002", "5001"))
	})
}

// TestChangesAreAnnouncedAfterTheCommit: every node hears of a changed
// account once the change is committed, and not of a rolled-back one.
func TestChangesAreAnnouncedAfterTheCommit(t *testing.T) {
	f := newFixture(t)
	a := f.mustCreate(t, f.ctx, input("Main", "1001", "5001"))
	f.bus.take()
	changed := []string{accounts.ChangedMessage + " " + a.ID.String()}
	errRollback := errors.New("rolled back")
	tests := []struct {
		name string
		op   func(ctx context.Context) error
		fail bool
		want []string
	}{
		{"Committed", func(ctx context.Context) error {
			_, err := f.s.Update(ctx, a.ID, accounts.UpdateInput{AutoReadReceipt: ptr(true)})
			return err
		}, false, changed},
		{"RolledBack", func(ctx context.Context) error {
			_, err := f.s.Update(ctx, a.ID, accounts.UpdateInput{AutoReadReceipt: ptr(false)})
			return err
		}, true, nil},
		{"Deleted", func(ctx context.Context) error { return f.s.Delete(ctx, a.ID) }, false, changed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := database.InTx(f.ctx, f.s.Client, func(ctx context.Context, _ *ent.Client) error {
				if err := tt.op(ctx); err != nil {
					return err
				}
				if got := f.bus.take(); len(got) != 0 {
					t.Errorf("announced before the commit: %v", got)
				}
				if tt.fail {
					return errRollback
				}
				return nil
			})
			if (err != nil) != tt.fail {
				t.Fatalf("transaction: %v", err)
			}
			if got := f.bus.take(); !slices.Equal(got, tt.want) {
				t.Errorf("announced %v, want %v", got, tt.want)
			}
		})
	}
}
