package rest_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/media"
	"switchboard/provider/providertest"
)

// fetchedImage stores an incoming image message as the inbound webhook
// does, has the fetcher copy its media from the fake platform through the
// task queue, and returns the message once its media_url is set.
func fetchedImage(t *testing.T, env *apitest.Env) *ent.Message {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	contactID := mustCreateContact(t, env.Admin, map[string]any{"phone_number": "15557654321"})
	m, err := env.Client().Message.Create().SetContactID(uuid.MustParse(contactID)).
		SetDirection(message.DirectionIncoming).SetStatus(message.StatusDelivered).SetMessageType("image").
		SetContent(map[string]any{"id": "MEDIA-CAT", "mime_type": "image/jpeg"}).SetMediaMimeType("image/jpeg").
		SetChatAccount("Main").SetChatMessageID("wamid.media-" + uuid.NewString()).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.App.Media.Queue(ctx, env.OrgID, m.ID); err != nil {
		t.Fatal(err)
	}
	return waitForMedia(t, env, func(q *ent.MessageQuery) { q.Where(message.ID(m.ID)) })
}

// waitForMedia waits until the message that where selects has its
// media_url.
func waitForMedia(t *testing.T, env *apitest.Env, where func(*ent.MessageQuery)) *ent.Message {
	t.Helper()
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	var m *ent.Message
	testkit.Eventually(t, "the message's media_url", func() bool {
		q := env.Client().Message.Query()
		where(q)
		got, err := q.Only(ctx)
		m = got
		return err == nil && got.MediaURL != ""
	})
	return m
}

// get fetches path as c with extra request headers.
func get(t *testing.T, env *apitest.Env, c *apitest.Client, path string, header map[string]string) *apitest.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return env.Send(req)
}

func TestMedia(t *testing.T) {
	env, fake := newAccountEnv(t)
	mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	image := append([]byte{0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F'}, bytes.Repeat([]byte("meow"), 256)...)
	fake.AddMedia("MEDIA-CAT", "image/jpeg", image)
	m := fetchedImage(t, env)
	url := m.MediaURL
	key, _ := media.KeyFromURL(url)
	name := key[strings.Index(key, "/")+1:]
	org := env.OrgID.String()

	t.Run("ServesTheFetchedBytes", func(t *testing.T) {
		for _, c := range []*apitest.Client{env.Admin, env.NewUser(env.OrgID, access.RoleAgent)} {
			res := get(t, env, c, url, nil).ExpectStatus(t, http.StatusOK)
			if !bytes.Equal(res.Raw, image) {
				t.Fatalf("served %d bytes, want the platform's %d", len(res.Raw), len(image))
			}
			for h, want := range map[string]string{
				"Content-Type":           "image/jpeg",
				"X-Content-Type-Options": "nosniff",
				"Content-Disposition":    `inline; filename=` + name,
				"Cache-Control":          "private, max-age=31536000, immutable",
			} {
				if got := res.Header.Get(h); got != want {
					t.Errorf("%s: %q, want %q", h, got, want)
				}
			}
		}
	})
	t.Run("ThroughTheWebhook", func(t *testing.T) {
		sticker := []byte("RIFF\x00\x00\x00\x00WEBPVP8 sticker")
		fake.AddMedia("MEDIA-STICKER", "image/webp", sticker)
		body := fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":%q,"changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},
"contacts":[{"profile":{"name":"Kim"},"wa_id":"15550009999"}],
"messages":[{"from":"15550009999","id":"wamid.sticker1","timestamp":"%d","type":"sticker","sticker":{"id":"MEDIA-STICKER","mime_type":"image/webp","animated":false}}]}}]}]}`,
			providertest.BusinessID, providertest.PhoneID, time.Now().Unix())
		mac := hmac.New(sha256.New, []byte(acctSecret))
		mac.Write([]byte(body))
		req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/webhook", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
		env.Send(req).ExpectStatus(t, http.StatusOK)

		m := waitForMedia(t, env, func(q *ent.MessageQuery) { q.Where(message.ChatMessageID("wamid.sticker1")) })
		res := get(t, env, env.Admin, m.MediaURL, nil).ExpectStatus(t, http.StatusOK)
		if !bytes.Equal(res.Raw, sticker) || res.Header.Get("Content-Type") != "image/webp" || m.MediaMimeType != "image/webp" {
			t.Fatalf("served %q as %s (message %s)", res.Raw, res.Header.Get("Content-Type"), m.MediaMimeType)
		}
	})
	t.Run("Range", func(t *testing.T) {
		res := get(t, env, env.Admin, url, map[string]string{"Range": "bytes=4-9"}).ExpectStatus(t, http.StatusPartialContent)
		if !bytes.Equal(res.Raw, image[4:10]) || res.Header.Get("Content-Range") != "bytes 4-9/"+strconv.Itoa(len(image)) {
			t.Fatalf("range: %q %s", res.Raw, res.Header.Get("Content-Range"))
		}
	})
	t.Run("NotModified", func(t *testing.T) {
		modified := get(t, env, env.Admin, url, nil).Header.Get("Last-Modified")
		res := get(t, env, env.Admin, url, map[string]string{"If-Modified-Since": modified})
		if res.Status != http.StatusNotModified || len(res.Raw) != 0 {
			t.Fatalf("conditional: %d %q", res.Status, res.Raw)
		}
	})
	t.Run("Anonymous", func(t *testing.T) {
		get(t, env, env.Anonymous(), url, nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("RoleWithoutMessagesRead", func(t *testing.T) {
		reader := mustCustomRole(t, env, env.Admin, "Contacts only", "contacts:read")
		get(t, env, reader, url, nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("OtherOrganization", func(t *testing.T) {
		get(t, env, env.NewOrg("Elsewhere"), url, nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("NotFound", func(t *testing.T) {
		for _, path := range []string{
			"/api/media/" + org + "/0123456789abcdef0123456789abcdef.jpg", // unknown
			"/api/media/" + uuid.NewString() + "/" + name,                 // another owner
			"/api/media/" + name,
			"/api/media/" + org,
			"/api/media/" + org + "/",
			"/api/media/" + org + "/../" + org + "/" + name,
			"/api/media/" + org + "/%2e%2e/" + org + "/" + name,
			"/api/media/" + org + "%2F..%2F..%2Fjwt_secret",
			"/api/media/..%2Fjwt_secret",
			"/api/media/" + org + "/..%2F..%2Fencryption_key",
			"/api/media/" + org + "/" + name + "/",
			"/api/media/" + org + "/" + strings.ToUpper(name[:32]) + ".jpg%20",
		} {
			t.Run(path, func(t *testing.T) {
				get(t, env, env.Admin, path, nil).ExpectError(t, http.StatusNotFound)
			})
		}
	})
	t.Run("NULInPath", func(t *testing.T) {
		get(t, env, env.Admin, "/api/media/"+org+"/"+name+"%00", nil).ExpectError(t, http.StatusBadRequest)
	})
}
