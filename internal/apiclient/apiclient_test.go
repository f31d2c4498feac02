package apiclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"switchboard/internal/apiclient"
)

// TestClient: Login keeps the session's token, user and organization;
// calls send the token (and the organization header once InOrg) and
// decode the envelope's data; another status than the one wanted is an
// error carrying the answer.
func TestClient(t *testing.T) {
	var lastOrg, lastAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lastOrg, lastAuth = r.Header.Get("X-Organization-ID"), r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/api/auth/login":
			var body map[string]string
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body["password"] != "right" {
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte(`{"status":"error","message":"invalid credentials"}`))
				return
			}
			_, _ = w.Write([]byte(`{"status":"success","data":{"access_token":"tok","user":{"id":"u1","organization_id":"o1"}}}`))
		default:
			_, _ = w.Write([]byte(`{"status":"success","data":{"name":"x"}}`))
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if _, err := apiclient.Login(ctx, srv.URL, "a@example.com", "wrong"); err == nil || !strings.Contains(err.Error(), "invalid credentials") {
		t.Fatalf("wrong password: %v", err)
	}
	c, err := apiclient.Login(ctx, srv.URL+"/", "a@example.com", "right")
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "tok" || c.UserID != "u1" || c.OrgID != "o1" || c.Base != srv.URL {
		t.Fatalf("session %+v", c)
	}
	var out struct{ Name string }
	if err := c.InOrg("o2").Call(ctx, http.MethodGet, "/api/things", nil, http.StatusOK, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "x" || lastAuth != "Bearer tok" || lastOrg != "o2" {
		t.Errorf("data %+v, Authorization %q, X-Organization-ID %q", out, lastAuth, lastOrg)
	}
	if err := c.Call(ctx, http.MethodGet, "/api/things", nil, http.StatusCreated, nil); err == nil || lastOrg != "" {
		t.Errorf("want an error for 200 where 201 was wanted, and no organization header: %v, %q", err, lastOrg)
	}
}
