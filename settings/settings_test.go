package settings_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
	"switchboard/secrets"
	"switchboard/settings"
)

func ptr[T any](v T) *T { return &v }

// newOrg creates an organization with a role named Agent and returns it
// with a context acting in it.
func newOrg(t *testing.T, s *settings.Service, name string) (uuid.UUID, context.Context) {
	t.Helper()
	org, ctx := testkit.NewOrg(t, s.Client, name)
	if _, err := s.Client.Role.Create().SetName("Agent").Save(ctx); err != nil {
		t.Fatal(err)
	}
	return org, ctx
}

// TestUpdateOrg: the checks of the organization's settings.
func TestUpdateOrg(t *testing.T) {
	db := testkit.OpenDB(t)
	s := &settings.Service{Client: db.Client}
	_, ctx := newOrg(t, s, "acme")
	o, err := s.UpdateOrg(ctx, settings.OrgChanges{
		Name: ptr(" Acme Ltd "), Timezone: ptr("Europe/Berlin"), DateFormat: ptr(" YYYY-MM-DD "),
		MaxCallDuration: ptr(600), TransferTimeoutSecs: ptr(30), MaskPhoneNumbers: ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "Acme Ltd" || o.Timezone != "Europe/Berlin" || o.DateFormat != "YYYY-MM-DD" || !o.MaskPhoneNumbers ||
		o.MaxCallDuration != 600 || o.TransferTimeoutSecs != 30 {
		t.Fatalf("updated %+v", o)
	}
	for _, tc := range []struct {
		name, message string
		in            settings.OrgChanges
	}{
		{"ErrNameEmpty", "name cannot be empty", settings.OrgChanges{Name: ptr(" ")}},
		{"ErrNameTooLong", "name must be at most 200 characters", settings.OrgChanges{Name: ptr(strings.Repeat("x", 201))}},
		{"ErrTimezone", `timezone "Mars/Olympus" is not an IANA time zone name (for example Europe/Berlin or UTC)`,
			settings.OrgChanges{Timezone: ptr("Mars/Olympus")}},
		{"ErrTimezoneLocal", `timezone "Local" is not an IANA time zone name (for example Europe/Berlin or UTC)`,
			settings.OrgChanges{Timezone: ptr("Local")}},
		{"ErrDateFormatEmpty", "date_format cannot be empty", settings.OrgChanges{DateFormat: ptr("")}},
		{"ErrDateFormatTooLong", "date_format must be at most 32 characters", settings.OrgChanges{DateFormat: ptr(strings.Repeat("Y", 33))}},
		{"ErrCallDuration", "max_call_duration must be between 1 and 86400 seconds", settings.OrgChanges{MaxCallDuration: ptr(0)}},
		{"ErrTransferTimeout", "transfer_timeout_secs must be between 1 and 3600 seconds", settings.OrgChanges{TransferTimeoutSecs: ptr(3601)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.UpdateOrg(ctx, tc.in)
			testkit.ExpectError(t, err, apperr.Invalid, tc.message)
		})
	}
	t.Run("NoOrganization", func(t *testing.T) {
		_, err := s.Org(viewer.NewContext(context.Background(), &viewer.Viewer{UserID: uuid.New()}))
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("error %v, want not_found", err)
		}
	})
}

// TestSaveSSO: a provider's configuration is checked (default role, URLs,
// domains, a secret to enable it) and its client secret is stored sealed
// and kept when none is given.
func TestSaveSSO(t *testing.T) {
	db := testkit.OpenDB(t)
	box, err := secrets.NewBox("test key")
	if err != nil {
		t.Fatal(err)
	}
	s := &settings.Service{Client: db.Client, Secrets: box}
	_, ctx := newOrg(t, s, "acme")

	google := settings.SSOInput{Provider: ssoconfig.ProviderGoogle, ClientID: " id ", ClientSecret: ptr("s3cret"),
		IsEnabled: true, DefaultRole: ptr("AGENT"), AllowedDomains: ptr(" Example.com, example.org ,example.com")}
	saved, err := s.SaveSSO(ctx, google)
	if err != nil {
		t.Fatal(err)
	}
	if saved.ClientID != "id" || saved.DefaultRole != "AGENT" || saved.AllowedDomains != "example.com,example.org" ||
		!settings.HasSSOSecret(saved) {
		t.Fatalf("saved %+v", saved)
	}
	if plain, err := box.Open(saved.ClientSecretEncrypted); err != nil || string(plain) != "s3cret" {
		t.Fatalf("sealed secret opens to %q, %v", plain, err)
	}
	t.Run("BlankSecretKeepsStored", func(t *testing.T) {
		again := google
		again.ClientSecret = ptr("  ")
		kept, err := s.SaveSSO(ctx, again)
		if err != nil || string(kept.ClientSecretEncrypted) != string(saved.ClientSecretEncrypted) {
			t.Fatalf("kept %+v, %v", kept, err)
		}
	})

	custom := func(auth, token, info string) settings.SSOInput {
		return settings.SSOInput{Provider: ssoconfig.ProviderCustom, ClientID: "c", ClientSecret: ptr("x"),
			AuthURL: ptr(auth), TokenURL: ptr(token), UserInfoURL: ptr(info)}
	}
	for _, tc := range []struct {
		name, message string
		in            settings.SSOInput
	}{
		{"ErrProvider", "provider must be one of google, microsoft, github, facebook, custom",
			settings.SSOInput{Provider: "okta", ClientID: "c"}},
		{"ErrClientID", "client_id is required", settings.SSOInput{Provider: ssoconfig.ProviderGithub, ClientID: " "}},
		{"ErrDefaultRole", `default_role "Owner" is not a role of this organization`,
			settings.SSOInput{Provider: ssoconfig.ProviderGithub, ClientID: "c", DefaultRole: ptr("Owner")}},
		{"ErrDomain", `allowed_domains: "not a domain" is not a domain name (give a comma-separated list such as example.com,example.org)`,
			settings.SSOInput{Provider: ssoconfig.ProviderGithub, ClientID: "c", AllowedDomains: ptr("not a domain")}},
		{"ErrEnableWithoutSecret", "client_secret is required to enable the github provider",
			settings.SSOInput{Provider: ssoconfig.ProviderGithub, ClientID: "c", IsEnabled: true}},
		{"ErrSecretTooLong", "client_secret must be at most 2048 characters",
			settings.SSOInput{Provider: ssoconfig.ProviderGithub, ClientID: "c", ClientSecret: ptr(strings.Repeat("x", 2049))}},
		{"ErrURLOnlyCustom", "auth_url applies only to the custom provider",
			settings.SSOInput{Provider: ssoconfig.ProviderGithub, ClientID: "c", AuthURL: ptr("https://idp.example/auth")}},
		{"ErrCustomNeedsURL", "token_url is required for the custom provider",
			custom("https://idp.example/auth", "", "https://idp.example/me")},
		{"ErrCustomHTTP", "auth_url must use https (http is allowed only for localhost)",
			custom("http://idp.example/auth", "https://idp.example/token", "https://idp.example/me")},
		{"ErrCustomNotAbsolute", "user_info_url must be an absolute https URL",
			custom("https://idp.example/auth", "https://idp.example/token", "/me")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.SaveSSO(ctx, tc.in)
			testkit.ExpectError(t, err, apperr.Invalid, tc.message)
		})
	}
	t.Run("CustomOnLocalhost", func(t *testing.T) {
		c, err := s.SaveSSO(ctx, custom("http://localhost:9000/auth", "http://127.0.0.1/token", "https://idp.example/me"))
		if err != nil || c.AuthURL != "http://localhost:9000/auth" {
			t.Fatalf("saved %+v, %v", c, err)
		}
	})
	t.Run("NoBox", func(t *testing.T) {
		_, err := (&settings.Service{Client: db.Client}).SaveSSO(ctx, google)
		if apperr.CodeOf(err) != apperr.Internal {
			t.Fatalf("error %v, want internal", err)
		}
	})
}

// TestSSOProviders: the login page's discovery lists enabled providers
// only, of one organization or of all, in the fixed order; deleting a
// configuration removes it.
func TestSSOProviders(t *testing.T) {
	db := testkit.OpenDB(t)
	box, err := secrets.NewBox("test key")
	if err != nil {
		t.Fatal(err)
	}
	s := &settings.Service{Client: db.Client, Secrets: box}
	acme, acmeCtx := newOrg(t, s, "acme")
	_, otherCtx := newOrg(t, s, "other")
	save := func(ctx context.Context, p ssoconfig.Provider, enabled bool) {
		t.Helper()
		if _, err := s.SaveSSO(ctx, settings.SSOInput{Provider: p, ClientID: "c", ClientSecret: ptr("x"), IsEnabled: enabled}); err != nil {
			t.Fatal(err)
		}
	}
	save(acmeCtx, ssoconfig.ProviderGithub, true)
	save(acmeCtx, ssoconfig.ProviderFacebook, false)
	save(otherCtx, ssoconfig.ProviderGoogle, true)
	names := func(orgID *uuid.UUID) string {
		t.Helper()
		ps, err := s.EnabledSSOProviders(context.Background(), orgID)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	unknown := uuid.New()
	for _, tc := range []struct {
		name  string
		org   *uuid.UUID
		names string
	}{
		{"OneOrganization", &acme, "GitHub"},
		{"Everyone", nil, "Google,GitHub"},
		{"UnknownOrganization", &unknown, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(tc.org); got != tc.names {
				t.Fatalf("providers %q, want %q", got, tc.names)
			}
		})
	}
	t.Run("Delete", func(t *testing.T) {
		if err := s.DeleteSSO(acmeCtx, ssoconfig.ProviderGithub); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSSO(acmeCtx, ssoconfig.ProviderGithub); apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("second delete: %v", err)
		}
		if got := names(&acme); got != "" {
			t.Fatalf("providers after delete %q", got)
		}
	})
}
