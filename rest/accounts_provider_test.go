package rest_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/internal/apitest"
	"switchboard/provider/providertest"
)

func TestAccountProviderCalls(t *testing.T) {
	env, fake := newAccountEnv(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	id := mustCreateAccount(t, admin, acctBody("Main", nil))
	base := "/api/accounts/" + id

	t.Run("Test", func(t *testing.T) {
		n := len(fake.Requests())
		res := admin.Do(http.MethodPost, base+"/test", nil).ExpectStatus(t, http.StatusOK)
		for path, want := range map[string]any{
			"data.success": true, "data.display_phone_number": "+1 555-078-3881",
			"data.verified_name": "Switchboard Test", "data.quality_rating": "GREEN",
			"data.messaging_limit_tier": "TIER_10K", "data.code_verification_status": "VERIFIED",
			"data.account_mode": "LIVE", "data.is_test_number": false,
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		if n := len(res.Get("data").(map[string]any)); n != 8 {
			t.Errorf("test answer has %d fields, want 8: %s", n, res.Raw)
		}
		expectNoSecrets(t, res)
		reqs := fake.Requests()[n:]
		if len(reqs) != 1 || reqs[0].Method != http.MethodGet || reqs[0].Path != "/v21.0/"+providertest.PhoneID {
			t.Fatalf("provider requests: %+v", reqs)
		}
		expectAuth(t, reqs, "Bearer")
		if tier := storedAccount(t, env, id).MessagingLimitTier; tier != "TIER_10K" {
			t.Errorf("stored messaging_limit_tier = %q", tier)
		}
	})
	t.Run("TestSandboxNumber", func(t *testing.T) {
		fake.SetPhoneNumber(map[string]any{"account_mode": "SANDBOX", "whatsapp_business_manager_messaging_limit": "TIER_1K"})
		defer fake.SetPhoneNumber(map[string]any{"account_mode": "LIVE", "whatsapp_business_manager_messaging_limit": "TIER_10K"})
		res := admin.Do(http.MethodPost, base+"/test", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.is_test_number") != true || res.String("data.messaging_limit_tier") != "TIER_1K" {
			t.Errorf("sandbox test: %s", res.Raw)
		}
		if tier := storedAccount(t, env, id).MessagingLimitTier; tier != "TIER_1K" {
			t.Errorf("stored messaging_limit_tier = %q", tier)
		}
	})
	t.Run("TestUsesAccountAPIVersion", func(t *testing.T) {
		// The fake's phone number belongs to one account: move it to v22.0.
		admin.Do(http.MethodPut, "/api/accounts/"+id, map[string]any{"api_version": "v22.0"}).ExpectStatus(t, http.StatusOK)
		defer func() {
			admin.Do(http.MethodPut, "/api/accounts/"+id, map[string]any{"api_version": "v21.0"}).ExpectStatus(t, http.StatusOK)
		}()
		n := len(fake.Requests())
		admin.Do(http.MethodPost, "/api/accounts/"+id+"/test", nil).ExpectStatus(t, http.StatusOK)
		reqs := fake.Requests()[n:]
		if len(reqs) != 1 || reqs[0].Path != "/v22.0/"+providertest.PhoneID {
			t.Errorf("provider requests: %+v", reqs)
		}
	})
	t.Run("TestInvalidToken", func(t *testing.T) {
		fake.Script("GET /{id}", providertest.InvalidToken())
		res := admin.Do(http.MethodPost, base+"/test", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Invalid OAuth access token") {
			t.Errorf("message does not carry the provider's: %s", res.Raw)
		}
		expectNoSecrets(t, res)
	})
	t.Run("TestProviderUnavailable", func(t *testing.T) {
		u := providertest.Unavailable()
		fake.Script("GET /{id}", u, u, u, u)
		res := admin.Do(http.MethodPost, base+"/test", nil).ExpectError(t, http.StatusServiceUnavailable)
		if !strings.Contains(res.String("message"), "Service temporarily unavailable") {
			t.Errorf("message: %s", res.Raw)
		}
	})
	t.Run("Subscribe", func(t *testing.T) {
		n := len(fake.Requests())
		res := admin.Do(http.MethodPost, base+"/subscribe", nil).ExpectStatus(t, http.StatusOK)
		if res.Get("data.success") != true || res.String("data.message") == "" {
			t.Errorf("subscribe answer: %s", res.Raw)
		}
		reqs := fake.Requests()[n:]
		if len(reqs) != 1 || reqs[0].Method != http.MethodPost ||
			reqs[0].Path != "/v21.0/"+providertest.BusinessID+"/subscribed_apps" {
			t.Fatalf("provider requests: %+v", reqs)
		}
		expectAuth(t, reqs, "Bearer")
		if !fake.Subscribed(providertest.BusinessID) {
			t.Error("fake not subscribed")
		}
	})
	t.Run("SubscribeRefused", func(t *testing.T) {
		fake.Script("POST /{waba}/subscribed_apps",
			providertest.GraphError(http.StatusForbidden, 200, "(#200) Permissions error", "The app lacks whatsapp_business_management"))
		res := admin.Do(http.MethodPost, base+"/subscribe", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Permissions error") {
			t.Errorf("message: %s", res.Raw)
		}
	})
	t.Run("GetBusinessProfile", func(t *testing.T) {
		n := len(fake.Requests())
		res := admin.Do(http.MethodGet, base+"/business_profile", nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", "messaging_product", "address", "description", "vertical", "email",
			"websites", "profile_picture_url", "about")
		if res.String("data.messaging_product") != "whatsapp" || res.String("data.vertical") != "PROF_SERVICES" ||
			res.String("data.about") != "Replies within the hour." || res.Len("data.websites") != 1 {
			t.Errorf("profile: %s", res.Raw)
		}
		reqs := fake.Requests()[n:]
		if len(reqs) != 1 || reqs[0].Method != http.MethodGet ||
			reqs[0].Path != "/v21.0/"+providertest.PhoneID+"/whatsapp_business_profile" {
			t.Fatalf("provider requests: %+v", reqs)
		}
		expectAuth(t, reqs, "Bearer")
	})
	t.Run("UpdateBusinessProfile", func(t *testing.T) {
		n := len(fake.Requests())
		res := admin.Do(http.MethodPut, base+"/business_profile", map[string]any{
			"messaging_product": "whatsapp", "about": "Open 9 to 5", "address": "2 Main St",
			"description": "We sell things.", "vertical": "RETAIL", "email": "shop@example.com",
			"websites": []string{"https://shop.example.com/", "http://blog.example.com"},
		}).ExpectStatus(t, http.StatusOK)
		for path, want := range map[string]any{
			"data.about": "Open 9 to 5", "data.address": "2 Main St", "data.description": "We sell things.",
			"data.vertical": "RETAIL", "data.email": "shop@example.com", "data.websites.1": "http://blog.example.com",
			"data.messaging_product": "whatsapp",
		} {
			if got := res.Get(path); got != want {
				t.Errorf("%s = %#v, want %#v", path, got, want)
			}
		}
		reqs := fake.Requests()[n:]
		endpoint := "/v21.0/" + providertest.PhoneID + "/whatsapp_business_profile"
		if len(reqs) != 2 || reqs[0].Method != http.MethodPost || reqs[0].Path != endpoint ||
			reqs[1].Method != http.MethodGet || reqs[1].Path != endpoint {
			t.Fatalf("provider requests: %+v", reqs)
		}
		expectAuth(t, reqs, "Bearer")
		sent := reqs[0].JSON(t).(map[string]any)
		if sent["messaging_product"] != "whatsapp" || sent["vertical"] != "RETAIL" || sent["about"] != "Open 9 to 5" {
			t.Errorf("sent profile: %s", reqs[0].Body)
		}
		t.Run("PartialKeepsOtherFields", func(t *testing.T) {
			res := admin.Do(http.MethodPut, base+"/business_profile", map[string]any{
				"messaging_product": "whatsapp", "about": "Closed on Sundays",
			}).ExpectStatus(t, http.StatusOK)
			if res.String("data.about") != "Closed on Sundays" || res.String("data.vertical") != "RETAIL" ||
				res.Len("data.websites") != 2 {
				t.Errorf("profile: %s", res.Raw)
			}
		})
	})
	t.Run("UpdateBusinessProfileRefused", func(t *testing.T) {
		fake.Script("POST /{phone}/whatsapp_business_profile", providertest.InvalidParameter("Param email is not valid"))
		res := admin.Do(http.MethodPut, base+"/business_profile", map[string]any{
			"messaging_product": "whatsapp", "email": "ok@example.com",
		}).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "Param email is not valid") {
			t.Errorf("message: %s", res.Raw)
		}
	})
	t.Run("UploadPhoto", func(t *testing.T) {
		for _, tc := range []struct {
			name, filename, mime string
			data                 []byte
		}{
			{"PNG", "logo.png", "image/png", pngData},
			// Detected by content: the name says GIF, the bytes are JPEG.
			{"JPEGMisnamed", "logo.gif", "image/jpeg", jpegData},
		} {
			t.Run(tc.name, func(t *testing.T) {
				n := len(fake.Requests())
				res := uploadPhoto(t, env, admin, base+"/business_profile/photo", "file", tc.filename, tc.data).
					ExpectStatus(t, http.StatusOK)
				handle := res.String("data.handle")
				if handle == "" || res.String("data.message") == "" {
					t.Fatalf("upload answer: %s", res.Raw)
				}
				reqs := fake.Requests()[n:]
				if len(reqs) != 3 {
					t.Fatalf("provider requests: %+v", reqs)
				}
				open, send, update := reqs[0], reqs[1], reqs[2]
				if open.Method != http.MethodPost || open.Path != "/v21.0/"+providertest.AppID+"/uploads" ||
					open.Query.Get("file_type") != tc.mime || open.Query.Get("file_length") != fmt.Sprint(len(tc.data)) ||
					open.Query.Get("file_name") != tc.filename {
					t.Errorf("upload session request: %s %s?%s", open.Method, open.Path, open.Query.Encode())
				}
				expectAuth(t, []providertest.Request{open, update}, "Bearer")
				if send.Method != http.MethodPost || !strings.HasPrefix(send.Path, "/v21.0/upload:") ||
					send.Header.Get("file_offset") != "0" || !bytes.Equal(send.Body, tc.data) {
					t.Errorf("upload data request: %s %s offset %q, %d bytes", send.Method, send.Path,
						send.Header.Get("file_offset"), len(send.Body))
				}
				expectAuth(t, []providertest.Request{send}, "OAuth")
				body := update.JSON(t).(map[string]any)
				if update.Path != "/v21.0/"+providertest.PhoneID+"/whatsapp_business_profile" ||
					body["profile_picture_handle"] != handle {
					t.Errorf("profile update request: %s %s", update.Path, update.Body)
				}
				if pic, _ := fake.BusinessProfile()["profile_picture_url"].(string); !strings.Contains(pic, "/pps/profile-") {
					t.Errorf("profile picture not set on the fake: %q", pic)
				}
			})
		}
	})
	t.Run("UploadPhotoWithoutAppID", func(t *testing.T) {
		noApp := mustCreateAccount(t, admin, acctBody("No app", map[string]any{"app_id": nil, "phone_id": newPhoneID()}))
		n := len(fake.Requests())
		res := uploadPhoto(t, env, admin, "/api/accounts/"+noApp+"/business_profile/photo", "file", "logo.png", pngData).
			ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "app_id") {
			t.Errorf("message: %s", res.Raw)
		}
		if len(fake.Requests()) != n {
			t.Error("the provider was called for an account without app_id")
		}
	})
}

// expectAuth checks that every recorded request carried the account's
// token with the given scheme.
func expectAuth(t *testing.T, reqs []providertest.Request, scheme string) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no provider request recorded")
	}
	for _, r := range reqs {
		if got := r.Header.Get("Authorization"); got != scheme+" "+acctToken {
			t.Errorf("%s %s: Authorization %q, want %s <token>", r.Method, r.Path, got, scheme)
		}
	}
}

// uploadPhoto posts a multipart body with one file part (field "file"
// unless field says otherwise).
func uploadPhoto(t *testing.T, env *apitest.Env, c *apitest.Client, path, field, filename string, data []byte) *apitest.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return sendRaw(t, env, c, path, mw.FormDataContentType(), buf.Bytes())
}

func sendRaw(t *testing.T, env *apitest.Env, c *apitest.Client, path, contentType string, body []byte) *apitest.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.Server.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return env.Send(req)
}
