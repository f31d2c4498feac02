package customactions_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/customactions"
	"switchboard/ent/customaction"
)

func newService(t *testing.T) (*customactions.Service, *miniredis.Miniredis) {
	t.Helper()
	m := miniredis.RunT(t)
	rc := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	return &customactions.Service{Redis: rc, Prefix: "test:"}, m
}

func TestRedirectToken(t *testing.T) {
	ctx := context.Background()
	t.Run("OnceThenGone", func(t *testing.T) {
		s, _ := newService(t)
		tok, err := s.IssueRedirect(ctx, "https://example.com/a")
		if err != nil {
			t.Fatal(err)
		}
		if u, err := s.Redeem(ctx, tok); err != nil || u != "https://example.com/a" {
			t.Fatalf("redeem: %q %v", u, err)
		}
		if _, err := s.Redeem(ctx, tok); apperr.CodeOf(err) != apperr.Gone {
			t.Fatalf("second redeem: %v", err)
		}
	})
	t.Run("ExpiredIsGone", func(t *testing.T) {
		s, m := newService(t)
		tok, err := s.IssueRedirect(ctx, "https://example.com/b")
		if err != nil {
			t.Fatal(err)
		}
		m.FastForward(customactions.RedirectTokenTTL - time.Second)
		if _, err := s.Redeem(ctx, tok); err != nil {
			t.Fatalf("redeem before expiry: %v", err)
		}
		tok, _ = s.IssueRedirect(ctx, "https://example.com/c")
		m.FastForward(customactions.RedirectTokenTTL)
		if _, err := s.Redeem(ctx, tok); !errors.Is(err, customactions.ErrRedirectGone) {
			t.Fatalf("redeem after expiry: %v", err)
		}
		// Long after, the token is forgotten altogether.
		m.FastForward(2 * time.Hour)
		if _, err := s.Redeem(ctx, tok); apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("redeem much later: %v", err)
		}
	})
	t.Run("UnknownIsNotFound", func(t *testing.T) {
		s, _ := newService(t)
		for _, tok := range []string{"", "nope", strings.Repeat("x", 500)} {
			if _, err := s.Redeem(ctx, tok); apperr.CodeOf(err) != apperr.NotFound {
				t.Errorf("%q: %v", tok, err)
			}
		}
	})
	t.Run("RedisDown", func(t *testing.T) {
		s, m := newService(t)
		m.Close()
		if _, err := s.IssueRedirect(ctx, "https://example.com"); apperr.CodeOf(err) != apperr.Unavailable {
			t.Fatalf("issue: %v", err)
		}
		if _, err := s.Redeem(ctx, "abc"); apperr.CodeOf(err) != apperr.Unavailable {
			t.Fatalf("redeem: %v", err)
		}
	})
}

func TestRender(t *testing.T) {
	vars := customactions.Variables{"contact.name": "A \"B\"\n\\ </script> &", "user.id": "a/b?c=d&e#f g+h"}
	body, err := customactions.RenderJSON(`{"n":"{{contact.name}}","u":"{{ user.id }}","x":"{{contact.unknown}}"}`, vars)
	var got map[string]string
	if err != nil || json.Unmarshal([]byte(body), &got) != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	if got["n"] != vars["contact.name"] || got["u"] != vars["user.id"] || got["x"] != "{{contact.unknown}}" {
		t.Fatalf("body: %s", body)
	}
	u, err := customactions.RenderURL("https://x.example/p/{{user.id}}?q={{contact.name}}", vars)
	if err != nil || u != "https://x.example/p/a%2Fb%3Fc=d&e%23f%20g+h?q=A%20%22B%22%0A%5C%20%3C%2Fscript%3E%20%26" {
		t.Fatalf("url: %s", u)
	}
}

func TestCheckConfigDefaults(t *testing.T) {
	c, err := customactions.CheckConfig(customaction.ActionTypeWebhook, map[string]any{"url": "https://a.example/{{contact.id}}"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if c["method"] != "POST" || c["body"] != "" || len(c["headers"].(map[string]any)) != 0 {
		t.Fatalf("webhook defaults: %v", c)
	}
	c, err = customactions.CheckConfig(customaction.ActionTypeURL, map[string]any{"url": "http://intranet/x", "open_in_new_tab": false}, false)
	if err != nil || c["open_in_new_tab"] != false {
		t.Fatalf("url: %v %v", c, err)
	}
	if _, err := customactions.CheckConfig(customaction.ActionTypeWebhook, map[string]any{"url": "http://127.0.0.1/x"}, false); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("loopback webhook: %v", err)
	}
	if _, err := customactions.CheckConfig(customaction.ActionTypeWebhook, map[string]any{"url": "http://127.0.0.1/x"}, true); err != nil {
		t.Fatalf("loopback webhook allowed: %v", err)
	}
}

// FuzzCheckConfig feeds arbitrary JSON configs of every type to the
// config decoder: it answers a config or an invalid error, never panics,
// and what it accepts passes again unchanged.
func FuzzCheckConfig(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://a.example/{{contact.id}}","method":"get","headers":{"X-A":"b"},"body":"{\"a\":\"{{contact.name}}\"}"}`,
		`{"url":"https://a.example","open_in_new_tab":false}`,
		`{"code":"alert(1)"}`,
		`{"url":"javascript:alert(1)"}`,
		`{"headers":{"Host":"x"},"url":"http://[::1]/"}`,
		`{}`,
	} {
		for _, typ := range []string{"webhook", "url", "javascript"} {
			f.Add(typ, seed)
		}
	}
	f.Fuzz(func(t *testing.T, typ, raw string) {
		var cfg map[string]any
		if json.Unmarshal([]byte(raw), &cfg) != nil {
			return
		}
		out, err := customactions.CheckConfig(customaction.ActionType(typ), cfg, false)
		if err != nil {
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("error code %s: %v", apperr.CodeOf(err), err)
			}
			return
		}
		// Round trip through JSON, as the database stores it.
		b, _ := json.Marshal(out)
		var again map[string]any
		_ = json.Unmarshal(b, &again)
		out2, err := customactions.CheckConfig(customaction.ActionType(typ), again, false)
		if err != nil {
			t.Fatalf("accepted config refused the second time: %v (%s)", err, b)
		}
		b2, _ := json.Marshal(out2)
		if string(b) != string(b2) {
			t.Fatalf("not stable: %s then %s", b, b2)
		}
	})
}
