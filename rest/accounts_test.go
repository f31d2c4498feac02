package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

// Credentials of the accounts these tests create; none may ever appear in
// a response.
const (
	acctToken  = "EAAGtoken-for-account-tests-0001"
	acctSecret = "app-secret-for-account-tests"
)

// acctKeys are the spec's Account fields, all always present.
var acctKeys = []string{"id", "name", "app_id", "phone_id", "business_id", "webhook_verify_token", "api_version",
	"is_default_incoming", "is_default_outgoing", "auto_read_receipt", "business_calling_enabled", "status",
	"has_access_token", "has_app_secret", "created_by_id", "created_by_name", "updated_by_id", "updated_by_name",
	"created_at", "updated_at"}

// newAccountEnv starts the application against a fake Graph API that
// accepts only acctToken.
func newAccountEnv(t *testing.T) (*apitest.Env, *providertest.Fake) {
	t.Helper()
	fake := providertest.New(t)
	fake.SetAccessToken(acctToken)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	return env, fake
}

// acctBody is a valid create body for the fake's phone number, with
// overrides.
func acctBody(name string, overrides map[string]any) map[string]any {
	b := map[string]any{
		"name": name, "phone_id": providertest.PhoneID, "business_id": providertest.BusinessID,
		"app_id": providertest.AppID, "access_token": acctToken, "app_secret": acctSecret,
	}
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

// newPhoneID returns a phone number id no other account holds: a phone
// number id belongs to one account.
func newPhoneID() string {
	return fmt.Sprintf("%015d", phoneIDs.Add(1)+100000000000000)
}

var phoneIDs atomic.Int64

// newBusinessID returns a business account id no organization holds: a
// business account belongs to one organization.
func newBusinessID() string {
	return fmt.Sprintf("%015d", businessIDs.Add(1)+300000000000000)
}

var businessIDs atomic.Int64

// mustCreateAccount creates an account and returns its id.
func mustCreateAccount(tb testing.TB, c *apitest.Client, body map[string]any) string {
	tb.Helper()
	res := c.Do(http.MethodPost, "/api/accounts", body).ExpectStatus(tb, http.StatusCreated)
	id := res.String("data.id")
	if _, err := uuid.Parse(id); err != nil {
		tb.Fatalf("created account has no id: %s", res.Raw)
	}
	return id
}

// expectNoSecrets fails when a response body carries a credential.
func expectNoSecrets(t *testing.T, res *apitest.Response, secrets ...string) {
	t.Helper()
	for _, s := range append([]string{acctToken, acctSecret}, secrets...) {
		if bytes.Contains(res.Raw, []byte(s)) {
			t.Errorf("response leaks a secret %q: %s", s, res.Raw)
		}
	}
}

// storedAccount reads an account's row past the privacy rules.
func storedAccount(t *testing.T, env *apitest.Env, id string) *ent.Account {
	t.Helper()
	a, err := env.Client().Account.Get(rule.Bypass(context.Background(), "test inspects storage"), uuid.MustParse(id))
	if err != nil {
		t.Fatalf("account %s: %v", id, err)
	}
	return a
}

// expectSealed checks that sealed is not plaintext but opens to it.
func expectSealed(t *testing.T, env *apitest.Env, what string, sealed []byte, plaintext string) {
	t.Helper()
	if len(sealed) == 0 {
		t.Fatalf("%s not stored", what)
	}
	if bytes.Equal(sealed, []byte(plaintext)) || bytes.Contains(sealed, []byte(plaintext)) {
		t.Errorf("%s stored in clear", what)
	}
	got, err := env.App.Resolver.Secrets.Open(sealed)
	if err != nil || string(got) != plaintext {
		t.Errorf("%s opens to %q (%v), want %q", what, got, err, plaintext)
	}
}

// defaultsOf maps account names to their [incoming, outgoing] defaults.
func defaultsOf(t *testing.T, c *apitest.Client) map[string][2]bool {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/accounts", nil).ExpectStatus(t, http.StatusOK)
	out := map[string][2]bool{}
	for i := 0; i < res.Len("data.accounts"); i++ {
		p := fmt.Sprintf("data.accounts.%d.", i)
		in, _ := res.Get(p + "is_default_incoming").(bool)
		outg, _ := res.Get(p + "is_default_outgoing").(bool)
		out[res.String(p+"name")] = [2]bool{in, outg}
	}
	return out
}

// Minimal file contents that http.DetectContentType recognizes.
var (
	pngData  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 64)...)
	jpegData = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{7}, 64)...)
	gifData  = append([]byte("GIF89a\x01\x00\x01\x00"), bytes.Repeat([]byte{7}, 64)...)
)

func TestAccounts(t *testing.T) {
	env, fake := newAccountEnv(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	manager := env.NewUser(env.OrgID, access.RoleManager)

	var mainID string
	t.Run("CreateOK", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/accounts", acctBody("Main", nil)).ExpectStatus(t, http.StatusCreated)
		expectKeys(t, res, "data", acctKeys...)
		if n := len(res.Get("data").(map[string]any)); n != len(acctKeys) {
			t.Errorf("account has %d fields, want %d: %s", n, len(acctKeys), res.Raw)
		}
		for path, want := range map[string]any{
			"data.name": "Main", "data.phone_id": providertest.PhoneID, "data.business_id": providertest.BusinessID,
			"data.app_id": providertest.AppID, "data.api_version": "v21.0", "data.status": "active",
			"data.is_default_incoming": true, "data.is_default_outgoing": true,
			"data.auto_read_receipt": false, "data.business_calling_enabled": false,
			"data.has_access_token": true, "data.has_app_secret": true,
			"data.created_by_id": admin.UserID.String(), "data.created_by_name": "Admin User",
			"data.updated_by_id": admin.UserID.String(), "data.updated_by_name": "Admin User",
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		if tok := res.String("data.webhook_verify_token"); len(tok) < 32 {
			t.Errorf("generated webhook_verify_token %q is too short", tok)
		}
		if res.String("data.created_at") == "" || res.String("data.updated_at") == "" {
			t.Errorf("timestamps missing: %s", res.Raw)
		}
		expectNoSecrets(t, res)
		mainID = res.String("data.id")
	})
	t.Run("SecretsSealedAtRest", func(t *testing.T) {
		a := storedAccount(t, env, mainID)
		expectSealed(t, env, "access token", a.AccessTokenEncrypted, acctToken)
		expectSealed(t, env, "app secret", a.AppSecretEncrypted, acctSecret)
	})
	t.Run("GeneratedVerifyTokensDiffer", func(t *testing.T) {
		id := mustCreateAccount(t, admin, acctBody("Generated", map[string]any{"webhook_verify_token": "", "phone_id": newPhoneID()}))
		got := admin.Do(http.MethodGet, "/api/accounts/"+id, nil).ExpectStatus(t, http.StatusOK)
		main := admin.Do(http.MethodGet, "/api/accounts/"+mainID, nil).ExpectStatus(t, http.StatusOK)
		tok := got.String("data.webhook_verify_token")
		if tok == "" || tok == main.String("data.webhook_verify_token") {
			t.Errorf("verify tokens %q and %q", tok, main.String("data.webhook_verify_token"))
		}
		admin.Do(http.MethodDelete, "/api/accounts/"+id, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("GivenValuesKept", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/accounts", acctBody("Given", map[string]any{
			"phone_id": newPhoneID(), "webhook_verify_token": "my-verify-token", "api_version": "v22.0", "app_secret": nil,
			"auto_read_receipt": true, "business_calling_enabled": true,
		})).ExpectStatus(t, http.StatusCreated)
		for path, want := range map[string]any{
			"data.webhook_verify_token": "my-verify-token", "data.api_version": "v22.0",
			"data.auto_read_receipt": true, "data.business_calling_enabled": true,
			"data.has_app_secret": false, "data.is_default_incoming": false, "data.is_default_outgoing": false,
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		admin.Do(http.MethodDelete, "/api/accounts/"+res.String("data.id"), nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("ListAndGet", func(t *testing.T) {
		res := manager.Do(http.MethodGet, "/api/accounts", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.accounts") != 1 || res.String("data.accounts.0.id") != mainID {
			t.Fatalf("list: %s", res.Raw)
		}
		expectKeys(t, res, "data.accounts.0", acctKeys...)
		expectNoSecrets(t, res)
		got := manager.Do(http.MethodGet, "/api/accounts/"+mainID, nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.name") != "Main" || got.String("data.created_by_name") != "Admin User" {
			t.Errorf("get: %s", got.Raw)
		}
		expectNoSecrets(t, got)
	})
	t.Run("DefaultsFlip", func(t *testing.T) {
		second := mustCreateAccount(t, admin, acctBody("Second", map[string]any{"phone_id": "200000000000001"}))
		if d := defaultsOf(t, admin); d["Main"] != [2]bool{true, true} || d["Second"] != [2]bool{false, false} {
			t.Fatalf("after second create: %v", d)
		}
		res := admin.Do(http.MethodPut, "/api/accounts/"+second, map[string]any{"is_default_outgoing": true}).
			ExpectStatus(t, http.StatusOK)
		if res.Get("data.is_default_outgoing") != true || res.Get("data.is_default_incoming") != false {
			t.Errorf("update answer: %s", res.Raw)
		}
		if d := defaultsOf(t, admin); d["Main"] != [2]bool{true, false} || d["Second"] != [2]bool{false, true} {
			t.Fatalf("after making Second default outgoing: %v", d)
		}
		third := mustCreateAccount(t, admin, acctBody("Third", map[string]any{
			"phone_id": "300000000000001", "is_default_incoming": true,
		}))
		if d := defaultsOf(t, admin); d["Main"] != [2]bool{false, false} || d["Second"] != [2]bool{false, true} ||
			d["Third"] != [2]bool{true, false} {
			t.Fatalf("after creating Third as default incoming: %v", d)
		}
		t.Run("ErrUnsetDefault", func(t *testing.T) {
			res := admin.Do(http.MethodPut, "/api/accounts/"+third, map[string]any{"is_default_incoming": false}).
				ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "is_default_incoming") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("DeleteDefaultPromotesOldest", func(t *testing.T) {
			res := admin.Do(http.MethodDelete, "/api/accounts/"+third, nil).ExpectStatus(t, http.StatusOK)
			if res.String("data.message") == "" {
				t.Errorf("delete answer: %s", res.Raw)
			}
			admin.Do(http.MethodGet, "/api/accounts/"+third, nil).ExpectError(t, http.StatusNotFound)
			if d := defaultsOf(t, admin); d["Main"] != [2]bool{true, false} || d["Second"] != [2]bool{false, true} {
				t.Fatalf("after deleting the default incoming account: %v", d)
			}
		})
		admin.Do(http.MethodDelete, "/api/accounts/"+second, nil).ExpectStatus(t, http.StatusOK)
		if d := defaultsOf(t, admin); d["Main"] != [2]bool{true, true} || len(d) != 1 {
			t.Fatalf("after deleting Second: %v", d)
		}
	})
	t.Run("PartialUpdate", func(t *testing.T) {
		before := storedAccount(t, env, mainID)
		res := manager.Do(http.MethodPut, "/api/accounts/"+mainID, map[string]any{
			"name": "Main line", "access_token": "", "auto_read_receipt": true,
		}).ExpectStatus(t, http.StatusOK)
		for path, want := range map[string]any{
			"data.name": "Main line", "data.auto_read_receipt": true, "data.phone_id": providertest.PhoneID,
			"data.has_access_token": true, "data.has_app_secret": true,
			"data.created_by_name": "Admin User", "data.updated_by_id": manager.UserID.String(),
			"data.updated_by_name": "Manager User",
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		after := storedAccount(t, env, mainID)
		if !bytes.Equal(before.AccessTokenEncrypted, after.AccessTokenEncrypted) ||
			!bytes.Equal(before.AppSecretEncrypted, after.AppSecretEncrypted) {
			t.Error("an empty or absent access_token/app_secret replaced the stored one")
		}
		res = manager.Do(http.MethodPut, "/api/accounts/"+mainID, map[string]any{
			"access_token": "EAAGrotated-token", "app_secret": "rotated-secret", "webhook_verify_token": "rotated-verify",
		}).ExpectStatus(t, http.StatusOK)
		expectNoSecrets(t, res, "EAAGrotated-token", "rotated-secret")
		after = storedAccount(t, env, mainID)
		expectSealed(t, env, "rotated access token", after.AccessTokenEncrypted, "EAAGrotated-token")
		expectSealed(t, env, "rotated app secret", after.AppSecretEncrypted, "rotated-secret")
		if after.WebhookVerifyToken != "rotated-verify" {
			t.Errorf("webhook_verify_token = %q", after.WebhookVerifyToken)
		}
		manager.Do(http.MethodPut, "/api/accounts/"+mainID, map[string]any{"access_token": acctToken, "app_secret": acctSecret}).
			ExpectStatus(t, http.StatusOK)
	})
	t.Run("ErrDuplicateName", func(t *testing.T) {
		res := admin.Do(http.MethodPost, "/api/accounts", acctBody(" Main line ", nil)).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "already exists") {
			t.Errorf("message: %s", res.Raw)
		}
		other := mustCreateAccount(t, admin, acctBody("Other line", map[string]any{"phone_id": newPhoneID()}))
		admin.Do(http.MethodPut, "/api/accounts/"+other, map[string]any{"name": "Main line"}).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodPut, "/api/accounts/"+other, map[string]any{"name": "Other line"}).ExpectStatus(t, http.StatusOK)
		admin.Do(http.MethodDelete, "/api/accounts/"+other, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("ConcurrentCreatesKeepOneDefault", func(t *testing.T) {
		owner := env.NewOrg("Concurrent")
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				owner.Do(http.MethodPost, "/api/accounts", acctBody(fmt.Sprintf("Line %d", i), map[string]any{"phone_id": newPhoneID(), "business_id": "400000000000001"}))
			}()
		}
		close(start)
		wg.Wait()
		d := defaultsOf(t, owner)
		var in, out int
		for _, v := range d {
			if v[0] {
				in++
			}
			if v[1] {
				out++
			}
		}
		if len(d) != 12 || in != 1 || out != 1 {
			t.Errorf("%d accounts, %d default incoming, %d default outgoing: %v", len(d), in, out, d)
		}
	})
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("account CRUD called the provider %d times", n)
	}
}

func TestAccountsBadInput(t *testing.T) {
	env, fake := newAccountEnv(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	id := mustCreateAccount(t, admin, acctBody("Main", nil))
	base := "/api/accounts/" + id

	t.Run("Create", func(t *testing.T) {
		cases := map[string]struct {
			body      any
			inMessage string
		}{
			"Malformed":          {`{"name":`, "JSON"},
			"EmptyBody":          {nil, "body"},
			"NotAnObject":        {`[]`, ""},
			"NameWrongType":      {`{"name": 5}`, "name"},
			"DefaultWrongType":   {acctBody("X", map[string]any{"is_default_incoming": "yes"}), "is_default_incoming"},
			"NameMissing":        {acctBody("X", map[string]any{"name": nil}), "name"},
			"NameBlank":          {acctBody("  ", nil), "name"},
			"NameTooLong":        {acctBody(strings.Repeat("n", 201), nil), "name"},
			"NameNUL":            {acctBody("a\x00b", nil), "NUL"},
			"PhoneIDMissing":     {acctBody("X", map[string]any{"phone_id": nil}), "phone_id"},
			"PhoneIDNotNumeric":  {acctBody("X", map[string]any{"phone_id": "+1 555 0100"}), "phone_id"},
			"BusinessIDMissing":  {acctBody("X", map[string]any{"business_id": nil}), "business_id"},
			"BusinessIDEmpty":    {acctBody("X", map[string]any{"business_id": ""}), "business_id"},
			"AccessTokenMissing": {acctBody("X", map[string]any{"access_token": nil}), "access_token"},
			"AccessTokenBlank":   {acctBody("X", map[string]any{"access_token": "  "}), "access_token"},
			"AppIDNotNumeric":    {acctBody("X", map[string]any{"app_id": "my-app"}), "app_id"},
			"APIVersionNoV":      {acctBody("X", map[string]any{"api_version": "21.0"}), "api_version"},
			"APIVersionNoMinor":  {acctBody("X", map[string]any{"api_version": "v21"}), "api_version"},
			"APIVersionPath":     {acctBody("X", map[string]any{"api_version": "v21.0/../x"}), "api_version"},
			"VerifyTokenTooLong": {acctBody("X", map[string]any{"webhook_verify_token": strings.Repeat("t", 257)}), "webhook_verify_token"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(http.MethodPost, "/api/accounts", tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.inMessage) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.inMessage)
				}
				expectNoSecrets(t, res)
			})
		}
		if res := admin.Do(http.MethodGet, "/api/accounts", nil); res.Len("data.accounts") != 1 {
			t.Errorf("a refused create stored an account: %s", res.Raw)
		}
	})
	t.Run("Update", func(t *testing.T) {
		badRequests(t, admin, http.MethodPut, base, map[string]any{
			"Malformed":         `{`,
			"EmptyBody":         nil,
			"NameEmpty":         map[string]any{"name": ""},
			"PhoneIDEmpty":      map[string]any{"phone_id": ""},
			"APIVersion":        map[string]any{"api_version": "latest"},
			"VerifyTokenEmpty":  map[string]any{"webhook_verify_token": " "},
			"AutoReadWrongType": `{"auto_read_receipt": 1}`,
		})
		admin.Do(http.MethodPut, "/api/accounts/not-a-uuid", map[string]any{"name": "X"}).ExpectError(t, http.StatusBadRequest)
		got := admin.Do(http.MethodGet, base, nil).ExpectStatus(t, http.StatusOK)
		if got.String("data.name") != "Main" || got.String("data.api_version") != "v21.0" {
			t.Errorf("a refused update changed the account: %s", got.Raw)
		}
	})
	t.Run("InvalidUUID", func(t *testing.T) {
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, "/api/accounts/123"}, {http.MethodDelete, "/api/accounts/123"},
			{http.MethodPost, "/api/accounts/123/test"}, {http.MethodPost, "/api/accounts/123/subscribe"},
			{http.MethodGet, "/api/accounts/123/business_profile"},
		} {
			res := admin.Do(r.method, r.path, nil).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "UUID") {
				t.Errorf("%s %s: %s", r.method, r.path, res.Raw)
			}
		}
	})
	t.Run("BusinessProfile", func(t *testing.T) {
		valid := func(overrides map[string]any) map[string]any {
			b := map[string]any{"messaging_product": "whatsapp"}
			for k, v := range overrides {
				b[k] = v
			}
			return b
		}
		cases := map[string]struct {
			body      any
			inMessage string
		}{
			"Malformed":               {`{"about": }`, "JSON"},
			"WebsitesWrongType":       {`{"messaging_product": "whatsapp", "websites": "https://a.example"}`, "websites"},
			"MessagingProductMissing": {map[string]any{"about": "Hi"}, "messaging_product"},
			"MessagingProductWrong":   {valid(map[string]any{"messaging_product": "sms"}), "messaging_product"},
			"TooManyWebsites": {valid(map[string]any{"websites": []string{
				"https://a.example", "https://b.example", "https://c.example"}}), "websites"},
			"WebsiteNotHTTP":     {valid(map[string]any{"websites": []string{"ftp://a.example"}}), "websites"},
			"WebsiteRelative":    {valid(map[string]any{"websites": []string{"www.example.com"}}), "websites"},
			"WebsiteTooLong":     {valid(map[string]any{"websites": []string{"https://a.example/" + strings.Repeat("p", 250)}}), "websites"},
			"EmailInvalid":       {valid(map[string]any{"email": "not-an-email"}), "email"},
			"EmailWithName":      {valid(map[string]any{"email": "Shop <shop@example.com>"}), "email"},
			"VerticalUnknown":    {valid(map[string]any{"vertical": "SPACE_TRAVEL"}), "vertical"},
			"VerticalLowerCase":  {valid(map[string]any{"vertical": "retail"}), "vertical"},
			"AboutTooLong":       {valid(map[string]any{"about": strings.Repeat("a", 140)}), "about"},
			"AboutEmpty":         {valid(map[string]any{"about": ""}), "about"},
			"DescriptionTooLong": {valid(map[string]any{"description": strings.Repeat("d", 513)}), "description"},
			"AddressTooLong":     {valid(map[string]any{"address": strings.Repeat("a", 257)}), "address"},
		}
		n := len(fake.Requests())
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(http.MethodPut, base+"/business_profile", tc.body).ExpectError(t, http.StatusBadRequest)
				if !strings.Contains(res.String("message"), tc.inMessage) {
					t.Errorf("message %q does not mention %q", res.String("message"), tc.inMessage)
				}
			})
		}
		if got := len(fake.Requests()); got != n {
			t.Errorf("refused profile updates reached the provider %d times", got-n)
		}
		// The limits themselves are accepted (139 runes, not bytes).
		admin.Do(http.MethodPut, base+"/business_profile", valid(map[string]any{
			"about": strings.Repeat("é", 139), "description": strings.Repeat("d", 512),
			"address": strings.Repeat("a", 256), "vertical": "NOT_A_BIZ",
		})).ExpectStatus(t, http.StatusOK)
	})
	t.Run("Photo", func(t *testing.T) {
		path := base + "/business_profile/photo"
		n := len(fake.Requests())
		t.Run("GIF", func(t *testing.T) {
			res := uploadPhoto(t, env, admin, path, "file", "logo.png", gifData).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "JPEG or PNG") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("TextNamedPNG", func(t *testing.T) {
			uploadPhoto(t, env, admin, path, "file", "logo.png", []byte("just some text")).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("Oversized", func(t *testing.T) {
			big := append(append([]byte(nil), pngData...), make([]byte, 5<<20)...)
			res := uploadPhoto(t, env, admin, path, "file", "big.png", big).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "too large") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("Empty", func(t *testing.T) {
			uploadPhoto(t, env, admin, path, "file", "logo.png", nil).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("WrongField", func(t *testing.T) {
			res := uploadPhoto(t, env, admin, path, "photo", "logo.png", pngData).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), "file is required") {
				t.Errorf("message: %s", res.Raw)
			}
		})
		t.Run("NotMultipart", func(t *testing.T) {
			admin.Do(http.MethodPost, path, `{"file": "x"}`).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("NoBody", func(t *testing.T) {
			admin.Do(http.MethodPost, path, nil).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("TruncatedMultipart", func(t *testing.T) {
			body := "--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\n\x89PNG"
			sendRaw(t, env, admin, path, "multipart/form-data; boundary=XYZ", []byte(body)).ExpectError(t, http.StatusBadRequest)
		})
		t.Run("BadBoundary", func(t *testing.T) {
			sendRaw(t, env, admin, path, "multipart/form-data", pngData).ExpectError(t, http.StatusBadRequest)
		})
		if got := len(fake.Requests()); got != n {
			t.Errorf("refused uploads reached the provider %d times", got-n)
		}
	})
}

func TestAccountsAccess(t *testing.T) {
	env, fake := newAccountEnv(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	manager := env.NewUser(env.OrgID, access.RoleManager)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	id := mustCreateAccount(t, admin, acctBody("Main", nil))
	base := "/api/accounts/" + id

	// every route of the group with a body its handler accepts.
	routes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/accounts", nil},
		{http.MethodPost, "/api/accounts", acctBody("New", map[string]any{"phone_id": newPhoneID()})},
		{http.MethodGet, base, nil},
		{http.MethodPut, base, map[string]any{"auto_read_receipt": true}},
		{http.MethodPost, base + "/test", nil},
		{http.MethodPost, base + "/subscribe", nil},
		{http.MethodGet, base + "/business_profile", nil},
		{http.MethodPut, base + "/business_profile", map[string]any{"messaging_product": "whatsapp", "about": "Hi"}},
		{http.MethodDelete, base, nil},
	}

	t.Run("Unauthenticated", func(t *testing.T) {
		for _, r := range routes {
			env.Anonymous().Do(r.method, r.path, r.body).ExpectError(t, http.StatusUnauthorized)
		}
		res := uploadPhoto(t, env, env.Anonymous(), base+"/business_profile/photo", "file", "a.png", pngData)
		res.ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("AgentForbidden", func(t *testing.T) {
		n := len(fake.Requests())
		for _, r := range routes {
			res := agent.Do(r.method, r.path, r.body)
			if res.Status != http.StatusForbidden {
				t.Errorf("%s %s: %d, want 403: %s", r.method, r.path, res.Status, res.Raw)
			}
		}
		uploadPhoto(t, env, agent, base+"/business_profile/photo", "file", "a.png", pngData).ExpectError(t, http.StatusForbidden)
		if got := len(fake.Requests()); got != n {
			t.Errorf("refused calls reached the provider %d times", got-n)
		}
		admin.Do(http.MethodGet, base, nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("OtherOrgNotFound", func(t *testing.T) {
		n := len(fake.Requests())
		for _, r := range routes[2:] {
			other.Do(r.method, r.path, r.body).ExpectError(t, http.StatusNotFound)
		}
		uploadPhoto(t, env, other, base+"/business_profile/photo", "file", "a.png", pngData).ExpectError(t, http.StatusNotFound)
		if got := len(fake.Requests()); got != n {
			t.Errorf("another organization's calls reached the provider %d times", got-n)
		}
		list := other.Do(http.MethodGet, "/api/accounts", nil).ExpectStatus(t, http.StatusOK)
		if list.Len("data.accounts") != 0 {
			t.Errorf("another organization lists our accounts: %s", list.Raw)
		}
		// Names are unique per organization only.
		res := other.Do(http.MethodPost, "/api/accounts", acctBody("Main", map[string]any{"phone_id": newPhoneID(), "business_id": newBusinessID()})).ExpectStatus(t, http.StatusCreated)
		if res.Get("data.is_default_incoming") != true || res.Get("data.is_default_outgoing") != true {
			t.Errorf("first account of the other organization is not its default: %s", res.Raw)
		}
		got := admin.Do(http.MethodGet, base, nil).ExpectStatus(t, http.StatusOK)
		if got.Get("data.auto_read_receipt") != false || got.Get("data.is_default_incoming") != true {
			t.Errorf("another organization changed our account: %s", got.Raw)
		}
	})
	t.Run("UnknownNotFound", func(t *testing.T) {
		unknown := "/api/accounts/" + uuid.NewString()
		for _, r := range routes[2:] {
			admin.Do(r.method, strings.Replace(r.path, base, unknown, 1), r.body).ExpectError(t, http.StatusNotFound)
		}
		uploadPhoto(t, env, admin, unknown+"/business_profile/photo", "file", "a.png", pngData).ExpectError(t, http.StatusNotFound)
	})
	t.Run("ManagerAllowed", func(t *testing.T) {
		for _, r := range routes {
			res := manager.Do(r.method, r.path, r.body)
			if res.Status != http.StatusOK && res.Status != http.StatusCreated {
				t.Errorf("%s %s: %d: %s", r.method, r.path, res.Status, res.Raw)
			}
		}
	})
	t.Run("CookieNeedsCSRF", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/accounts", strings.NewReader(`{}`))
		req.AddCookie(&http.Cookie{Name: "whm_access", Value: admin.Token})
		req.Header.Set("Content-Type", "application/json")
		env.Send(req).ExpectError(t, http.StatusForbidden)
	})
}
