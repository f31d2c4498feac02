package rest_test

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

func TestOrgSettings(t *testing.T) {
	env := apitest.New(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")

	t.Run("Defaults", func(t *testing.T) {
		res := manager.Do(http.MethodGet, "/api/org/settings", nil).ExpectStatus(t, http.StatusOK)
		for path, want := range map[string]any{
			"data.name": "Default", "data.settings.mask_phone_numbers": false,
			"data.settings.timezone": "UTC", "data.settings.date_format": "DD/MM/YYYY",
			"data.settings.calling_enabled": false, "data.settings.max_call_duration": float64(3600),
			"data.settings.transfer_timeout_secs": float64(120), "data.settings.hold_music_file": "",
			"data.settings.ringback_file": "",
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
	})
	t.Run("PartialUpdate", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"timezone": "Europe/Berlin"}).
			ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("update: %s", res.Raw)
		}
		got := admin.Do(http.MethodGet, "/api/org/settings", nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.settings.timezone") != "Europe/Berlin" || got.String("data.name") != "Default" ||
			got.Number("data.settings.max_call_duration") != 3600 {
			t.Errorf("after partial update: %s", got.Raw)
		}
	})
	t.Run("FullUpdate", func(t *testing.T) {
		admin.Do(http.MethodPut, "/api/org/settings", map[string]any{
			"name": " Acme Support ", "mask_phone_numbers": true, "timezone": "America/New_York",
			"date_format": "YYYY-MM-DD", "calling_enabled": true, "max_call_duration": 86400,
			"transfer_timeout_secs": 1, "allow_open_registration": true,
		}).ExpectStatus(t, http.StatusOK)
		got := admin.Do(http.MethodGet, "/api/org/settings", nil).ExpectStatus(t, http.StatusOK)
		for path, want := range map[string]any{
			"data.name": "Acme Support", "data.settings.mask_phone_numbers": true,
			"data.settings.timezone": "America/New_York", "data.settings.date_format": "YYYY-MM-DD",
			"data.settings.calling_enabled": true, "data.settings.max_call_duration": float64(86400),
			"data.settings.transfer_timeout_secs": float64(1),
		} {
			if got := got.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		org, err := env.Client().Organization.Get(rule.Bypass(context.Background(), "test inspects storage"), env.OrgID)
		if err != nil {
			t.Fatal(err)
		}
		if !org.AllowOpenRegistration {
			t.Error("allow_open_registration not stored")
		}
	})
	t.Run("OtherOrgUntouched", func(t *testing.T) {
		res := other.Do(http.MethodGet, "/api/org/settings", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.name") != "Elsewhere" || res.String("data.settings.timezone") != "UTC" {
			t.Errorf("another org's settings: %s", res.Raw)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		cases := map[string]struct {
			body      any
			inMessage string
		}{
			"Malformed":            {`{`, ""},
			"EmptyBody":            {nil, ""},
			"NotAnObject":          {`[]`, ""},
			"MaskWrongType":        {`{"mask_phone_numbers": "yes"}`, "mask_phone_numbers"},
			"DurationWrongType":    {`{"max_call_duration": "10"}`, "max_call_duration"},
			"DurationFraction":     {`{"max_call_duration": 1.5}`, "max_call_duration"},
			"NameEmpty":            {map[string]any{"name": "  "}, "name"},
			"NameTooLong":          {map[string]any{"name": strings.Repeat("n", 201)}, "name"},
			"TimezoneUnknown":      {map[string]any{"timezone": "Mars/Olympus_Mons"}, "timezone"},
			"TimezoneEmpty":        {map[string]any{"timezone": ""}, "timezone"},
			"TimezoneLocal":        {map[string]any{"timezone": "Local"}, "timezone"},
			"DateFormatEmpty":      {map[string]any{"date_format": ""}, "date_format"},
			"DateFormatTooLong":    {map[string]any{"date_format": strings.Repeat("D", 33)}, "date_format"},
			"DurationZero":         {map[string]any{"max_call_duration": 0}, "max_call_duration"},
			"DurationTooLong":      {map[string]any{"max_call_duration": 86401}, "max_call_duration"},
			"TransferTimeoutZero":  {map[string]any{"transfer_timeout_secs": 0}, "transfer_timeout_secs"},
			"TransferTimeoutLarge": {map[string]any{"transfer_timeout_secs": 3601}, "transfer_timeout_secs"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(http.MethodPut, "/api/org/settings", tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.inMessage) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.inMessage)
				}
			})
		}
		got := admin.Do(http.MethodGet, "/api/org/settings", nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.settings.timezone") != "America/New_York" || got.String("data.name") != "Acme Support" {
			t.Errorf("a refused update changed settings: %s", got.Raw)
		}
	})
	t.Run("Forbidden", func(t *testing.T) {
		cases := map[string]struct {
			client       *apitest.Client
			method, path string
			body         any
		}{
			"AgentRead":     {agent, http.MethodGet, "/api/org/settings", nil},
			"AgentUpdate":   {agent, http.MethodPut, "/api/org/settings", map[string]any{"name": "Mine"}},
			"ManagerUpdate": {manager, http.MethodPut, "/api/org/settings", map[string]any{"name": "Mine"}},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				tc.client.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusForbidden)
			})
		}
	})
	t.Run("Unauthenticated", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, "/api/org/settings", nil).ExpectError(t, http.StatusUnauthorized)
		env.Anonymous().Do(http.MethodPut, "/api/org/settings", map[string]any{"name": "X"}).ExpectError(t, http.StatusUnauthorized)
	})
}

func TestSSOSettings(t *testing.T) {
	env := apitest.New(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	sysCtx := viewer.SystemContext(context.Background(), env.OrgID)

	const secret = "google-client-secret-do-not-leak"
	const secret2 = "rotated-client-secret-do-not-leak"

	// storedSecret reads the encrypted secret of provider from the database.
	storedSecret := func(t *testing.T, provider ssoconfig.Provider) []byte {
		t.Helper()
		row, err := env.Client().SSOConfig.Query().Where(ssoconfig.ProviderEQ(provider)).Only(sysCtx)
		if err != nil {
			t.Fatal(err)
		}
		return row.ClientSecretEncrypted
	}

	saved := admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
		"client_id": "google-client", "client_secret": secret, "is_enabled": true,
		"allow_auto_create": true, "allowed_domains": " Example.com, example.org ,,example.com",
	}).ExpectStatus(t, http.StatusOK)

	t.Run("SaveShape", func(t *testing.T) {
		for path, want := range map[string]any{
			"data.provider": "google", "data.client_id": "google-client", "data.has_secret": true,
			"data.is_enabled": true, "data.allow_auto_create": true, "data.default_role": "agent",
			"data.allowed_domains": "example.com,example.org", "data.auth_url": "",
			"data.token_url": "", "data.user_info_url": "",
		} {
			if got := saved.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		data := saved.Get("data").(map[string]any)
		for _, f := range []string{"client_secret", "client_secret_encrypted"} {
			if _, ok := data[f]; ok {
				t.Errorf("response has %s", f)
			}
		}
		if bytes.Contains(saved.Raw, []byte(secret)) {
			t.Errorf("secret in response: %s", saved.Raw)
		}
	})
	t.Run("StoredEncrypted", func(t *testing.T) {
		enc := storedSecret(t, ssoconfig.ProviderGoogle)
		if len(enc) == 0 || bytes.Contains(enc, []byte(secret)) {
			t.Fatalf("secret stored as %q", enc)
		}
		plain, err := env.App.Resolver.Secrets.Open(enc)
		if err != nil || string(plain) != secret {
			t.Errorf("stored secret opens to %q, %v", plain, err)
		}
	})
	t.Run("ListHasNoSecret", func(t *testing.T) {
		res := manager.Do(http.MethodGet, "/api/settings/sso", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data") != 1 || res.String("data.0.provider") != "google" || res.Get("data.0.has_secret") != true {
			t.Fatalf("list: %s", res.Raw)
		}
		if bytes.Contains(res.Raw, []byte(secret)) || bytes.Contains(res.Raw, []byte("client_secret")) {
			t.Errorf("secret in list: %s", res.Raw)
		}
		theirs := other.Do(http.MethodGet, "/api/settings/sso", nil).ExpectStatus(t, http.StatusOK)
		if theirs.Len("data") != 0 {
			t.Errorf("another org sees our configuration: %s", theirs.Raw)
		}
	})
	t.Run("OmittedSecretIsKept", func(t *testing.T) {
		before := storedSecret(t, ssoconfig.ProviderGoogle)
		res := admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
			"client_id": "google-client-2", "is_enabled": true, "allow_auto_create": false,
			"default_role": "MANAGER",
		}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.has_secret") != true || res.String("data.client_id") != "google-client-2" ||
			res.String("data.default_role") != "MANAGER" || res.String("data.allowed_domains") != "" ||
			res.Get("data.allow_auto_create") != false {
			t.Errorf("update: %s", res.Raw)
		}
		if !bytes.Equal(storedSecret(t, ssoconfig.ProviderGoogle), before) {
			t.Error("omitting client_secret changed the stored secret")
		}
		blank := admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
			"client_id": "google-client-2", "client_secret": "", "is_enabled": true, "allow_auto_create": false,
		}).ExpectStatus(t, http.StatusOK)
		if blank.Get("data.has_secret") != true || !bytes.Equal(storedSecret(t, ssoconfig.ProviderGoogle), before) {
			t.Errorf("a blank client_secret changed the stored secret: %s", blank.Raw)
		}
	})
	t.Run("SecretRotation", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/settings/sso/google", map[string]any{
			"client_id": "google-client", "client_secret": secret2, "is_enabled": true, "allow_auto_create": true,
		}).ExpectStatus(t, http.StatusOK)
		if bytes.Contains(res.Raw, []byte(secret2)) {
			t.Errorf("secret in response: %s", res.Raw)
		}
		plain, err := env.App.Resolver.Secrets.Open(storedSecret(t, ssoconfig.ProviderGoogle))
		if err != nil || string(plain) != secret2 {
			t.Errorf("rotated secret opens to %q, %v", plain, err)
		}
	})
	t.Run("CustomProvider", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/settings/sso/custom", map[string]any{
			"client_id": "custom-client", "client_secret": "custom-secret-value", "is_enabled": true,
			"allow_auto_create": false, "auth_url": "https://id.example.com/authorize",
			"token_url": "https://id.example.com/token", "user_info_url": "http://localhost:9000/userinfo",
		}).ExpectStatus(t, http.StatusOK)
		if res.String("data.auth_url") != "https://id.example.com/authorize" ||
			res.String("data.user_info_url") != "http://localhost:9000/userinfo" {
			t.Errorf("custom: %s", res.Raw)
		}
		if bytes.Contains(res.Raw, []byte("custom-secret-value")) {
			t.Errorf("secret in response: %s", res.Raw)
		}
	})
	t.Run("DisabledWithoutSecret", func(t *testing.T) {
		res := admin.Do(http.MethodPut, "/api/settings/sso/facebook", map[string]any{
			"client_id": "fb", "is_enabled": false, "allow_auto_create": false,
		}).ExpectStatus(t, http.StatusOK)
		if res.Get("data.has_secret") != false {
			t.Errorf("facebook: %s", res.Raw)
		}
	})
	t.Run("BadInput", func(t *testing.T) {
		valid := func(extra map[string]any) map[string]any {
			b := map[string]any{"client_id": "cid", "client_secret": "sec", "is_enabled": true, "allow_auto_create": false}
			for k, v := range extra {
				if v == nil {
					delete(b, k)
					continue
				}
				b[k] = v
			}
			return b
		}
		customURLs := map[string]any{
			"auth_url": "https://id.example.com/a", "token_url": "https://id.example.com/t",
			"user_info_url": "https://id.example.com/u",
		}
		withURLs := func(k, v string) map[string]any {
			m := valid(customURLs)
			m[k] = v
			return m
		}
		cases := map[string]struct {
			method, path string
			body         any
			inMessage    string
		}{
			"UnknownProvider":        {http.MethodPut, "/api/settings/sso/okta", valid(nil), "provider"},
			"UnknownProviderDelete":  {http.MethodDelete, "/api/settings/sso/okta", nil, "provider"},
			"ProviderCase":           {http.MethodPut, "/api/settings/sso/Google", valid(nil), "provider"},
			"Malformed":              {http.MethodPut, "/api/settings/sso/github", `{`, ""},
			"EmptyBody":              {http.MethodPut, "/api/settings/sso/github", nil, ""},
			"EnabledWrongType":       {http.MethodPut, "/api/settings/sso/github", `{"client_id": "c", "is_enabled": "yes", "allow_auto_create": false}`, "is_enabled"},
			"ClientIDWrongType":      {http.MethodPut, "/api/settings/sso/github", `{"client_id": 5, "is_enabled": true, "allow_auto_create": false}`, "client_id"},
			"ClientIDMissing":        {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"client_id": nil}), "client_id"},
			"ClientIDBlank":          {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"client_id": " "}), "client_id"},
			"EnabledMissing":         {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"is_enabled": nil}), "is_enabled"},
			"AutoCreateMissing":      {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"allow_auto_create": nil}), "allow_auto_create"},
			"EnableWithoutSecret":    {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"client_secret": nil}), "client_secret"},
			"UnknownDefaultRole":     {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"default_role": "Wizard"}), "default_role"},
			"BadDomain":              {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"allowed_domains": "example.com, not a domain"}), "not a domain"},
			"DomainWithAt":           {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"allowed_domains": "@example.com"}), "allowed_domains"},
			"URLsOnWellKnown":        {http.MethodPut, "/api/settings/sso/github", valid(map[string]any{"auth_url": "https://x.example.com"}), "custom"},
			"CustomMissingURLs":      {http.MethodPut, "/api/settings/sso/custom", valid(map[string]any{"auth_url": "https://id.example.com/a"}), "token_url"},
			"CustomHTTP":             {http.MethodPut, "/api/settings/sso/custom", withURLs("token_url", "http://id.example.com/t"), "https"},
			"CustomNotURL":           {http.MethodPut, "/api/settings/sso/custom", withURLs("auth_url", "id.example.com/a"), "auth_url"},
			"CustomFTP":              {http.MethodPut, "/api/settings/sso/custom", withURLs("user_info_url", "ftp://id.example.com/u"), "user_info_url"},
			"CustomHTTPLookalikeLAN": {http.MethodPut, "/api/settings/sso/custom", withURLs("auth_url", "http://localhost.example.com/a"), "https"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.inMessage) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.inMessage)
				}
			})
		}
		list := admin.Do(http.MethodGet, "/api/settings/sso", nil).ExpectStatus(t, http.StatusOK)
		if list.Len("data") != 3 {
			t.Errorf("a refused save was stored: %s", list.Raw)
		}
	})
	t.Run("Forbidden", func(t *testing.T) {
		body := map[string]any{"client_id": "c", "client_secret": "s", "is_enabled": true, "allow_auto_create": false}
		cases := map[string]struct {
			client       *apitest.Client
			method, path string
			body         any
		}{
			"AgentList":     {agent, http.MethodGet, "/api/settings/sso", nil},
			"AgentSave":     {agent, http.MethodPut, "/api/settings/sso/github", body},
			"AgentDelete":   {agent, http.MethodDelete, "/api/settings/sso/google", nil},
			"ManagerSave":   {manager, http.MethodPut, "/api/settings/sso/github", body},
			"ManagerDelete": {manager, http.MethodDelete, "/api/settings/sso/google", nil},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				tc.client.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusForbidden)
			})
		}
	})
	t.Run("Unauthenticated", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, "/api/settings/sso", nil).ExpectError(t, http.StatusUnauthorized)
		env.Anonymous().Do(http.MethodDelete, "/api/settings/sso/google", nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("PublicProviders", func(t *testing.T) {
		other.Do(http.MethodPut, "/api/settings/sso/github", map[string]any{
			"client_id": "gh", "client_secret": "gh-secret-value", "is_enabled": true, "allow_auto_create": false,
		}).ExpectStatus(t, http.StatusOK)
		anon := env.Anonymous()
		providers := func(t *testing.T, query string) []string {
			t.Helper()
			res := anon.Do(http.MethodGet, "/api/auth/sso/providers"+query, nil).ExpectStatus(t, http.StatusOK)
			if bytes.Contains(res.Raw, []byte("secret")) || bytes.Contains(res.Raw, []byte("client")) {
				t.Errorf("discovery leaks configuration: %s", res.Raw)
			}
			var out []string
			for i := range res.Len("data") {
				out = append(out, res.String("data."+strconv.Itoa(i)+".provider")+"="+res.String("data."+strconv.Itoa(i)+".name"))
			}
			return out
		}
		cases := map[string]struct {
			query string
			want  string
		}{
			// facebook is configured but disabled in our organization.
			"AllOrganizations":    {"", "google=Google,github=GitHub,custom=Single sign-on"},
			"OurOrganization":     {"?organization_id=" + env.OrgID.String(), "google=Google,custom=Single sign-on"},
			"OtherOrganization":   {"?organization_id=" + other.OrgID.String(), "github=GitHub"},
			"UnknownOrganization": {"?organization_id=" + uuid.NewString(), ""},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				if got := strings.Join(providers(t, tc.query), ","); got != tc.want {
					t.Errorf("providers %q, want %q", got, tc.want)
				}
			})
		}
		t.Run("InvalidOrganizationID", func(t *testing.T) {
			anon.Do(http.MethodGet, "/api/auth/sso/providers?organization_id=nope", nil).ExpectError(t, http.StatusBadRequest)
		})
	})
	t.Run("Delete", func(t *testing.T) {
		res := admin.Do(http.MethodDelete, "/api/settings/sso/google", nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		admin.Do(http.MethodDelete, "/api/settings/sso/google", nil).ExpectError(t, http.StatusNotFound)
		// github exists only in the other organization.
		admin.Do(http.MethodDelete, "/api/settings/sso/github", nil).ExpectError(t, http.StatusNotFound)
		theirs := other.Do(http.MethodGet, "/api/settings/sso", nil).ExpectStatus(t, http.StatusOK)
		if theirs.Len("data") != 1 || theirs.String("data.0.provider") != "github" {
			t.Errorf("another org's configuration changed: %s", theirs.Raw)
		}
		list := admin.Do(http.MethodGet, "/api/settings/sso", nil).ExpectStatus(t, http.StatusOK)
		if list.Len("data") != 2 {
			t.Errorf("after delete: %s", list.Raw)
		}
	})
}
