package rest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"switchboard/provider/providertest"
)

// TestPlatformFailureStatus checks that every capability calling the
// platform while answering answers its failures alike (provider.AppError):
// a refusal is 400 with the platform's text; a 5xx answer or a platform
// that drops the connection is 503, and the latter's message names no
// address or network error.
func TestPlatformFailureStatus(t *testing.T) {
	env, fake := newAccountEnv(t)
	admin := env.Admin
	account := mustCreateAccount(t, admin, acctBody("Main", nil))
	draft := admin.Do(http.MethodPost, "/api/templates", tplBody("order_shipped", nil)).ExpectStatus(t, http.StatusCreated).String("data.id")
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format(time.DateOnly) }
	sync := map[string]any{"chat_account": "Main"}

	calls := []struct {
		name, method, path string
		body               any
		// platform is the Graph API call that fails.
		platform string
	}{
		{"AccountTest", http.MethodPost, "/api/accounts/" + account + "/test", nil, "GET /{id}"},
		{"TemplateSync", http.MethodPost, "/api/templates/sync", sync, "GET /{waba}/message_templates"},
		{"TemplatePublish", http.MethodPost, "/api/templates/" + draft + "/publish", nil, "POST /{waba}/message_templates"},
		{"FlowSync", http.MethodPost, "/api/flows/sync", sync, "GET /{waba}/flows"},
		{"CatalogSync", http.MethodPost, "/api/catalogs/sync", sync, "GET /{id}"},
		{"ProviderAnalytics", http.MethodGet, "/api/analytics/provider?analytics_type=analytics&start=" + day(-6) + "&end=" + day(0), nil, "GET /{id}"},
	}
	failures := []struct {
		name    string
		answer  http.HandlerFunc
		status  int
		message string
	}{
		{"Refused", providertest.InvalidParameter("Param x is wrong").ServeHTTP, http.StatusBadRequest, "Param x is wrong"},
		{"ServerError", providertest.Unavailable().ServeHTTP, http.StatusServiceUnavailable, "Service temporarily unavailable"},
		{"ProxyError", providertest.Response{Status: http.StatusBadGateway, Body: "<html>Bad Gateway</html>"}.ServeHTTP,
			http.StatusServiceUnavailable, "502"},
		{"Unreachable", providertest.Drop, http.StatusServiceUnavailable, "the platform could not be reached"},
	}
	host := strings.TrimPrefix(fake.URL, "http://")
	for _, c := range calls {
		for _, f := range failures {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				fake.Handle(c.platform, f.answer)
				defer fake.Handle(c.platform, nil)
				res := admin.Do(c.method, c.path, c.body).ExpectError(t, f.status)
				msg := res.String("message")
				if !strings.Contains(msg, f.message) {
					t.Errorf("message %q does not say %q", msg, f.message)
				}
				for _, leak := range []string{host, "127.0.0.1", "EOF", "dial", acctToken} {
					if strings.Contains(msg, leak) {
						t.Errorf("message %q shows %q", msg, leak)
					}
				}
			})
		}
	}
}
