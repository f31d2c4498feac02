package rest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"switchboard/internal/apitest"
)

// TestNumericQueryBounds sends out-of-range numbers in every numeric query
// parameter to every GET route: each answers 400 (or clamps), never 500.
func TestNumericQueryBounds(t *testing.T) {
	env := apitest.New(t)
	env.SkipOpenAPI = true // most of these routes do not declare page or limit
	routes := env.App.Handler.(*gin.Engine).Routes()
	values := []string{
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-1", "0",
		"2147483648", "1e3", "0x10", " 1", "99999999999999999999999",
	}
	for _, r := range routes {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		path := pathWithParams(r.Path)
		t.Run(strings.TrimPrefix(r.Path, "/api/"), func(t *testing.T) {
			for _, param := range []string{"page", "limit"} {
				for _, v := range values {
					res := env.Admin.Do(http.MethodGet, path+"?"+param+"="+url.QueryEscape(v), nil)
					if serverFault(res.Status) {
						t.Errorf("%s=%s: %d %s", param, v, res.Status, res.Raw)
					}
					if res.Status == http.StatusBadRequest {
						res.ExpectError(t, http.StatusBadRequest)
					}
				}
			}
		})
	}
	t.Run("HugePageIsRefused", func(t *testing.T) {
		env.Admin.Do(http.MethodGet, "/api/teams?page=9223372036854775807", nil).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("LargestPageWorks", func(t *testing.T) {
		res := env.Admin.Do(http.MethodGet, "/api/teams?page=1000000&limit=100", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.teams") != 0 || res.Number("data.page") != 1000000 {
			t.Fatalf("last page: %s", res.Raw)
		}
	})
}

// pathWithParams fills a route template's parameters with a UUID no row has.
func pathWithParams(template string) string {
	parts := strings.Split(template, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || strings.HasPrefix(p, "*") {
			parts[i] = "0190f1d2-0000-7000-8000-000000000001"
		}
	}
	return strings.Join(parts, "/")
}
