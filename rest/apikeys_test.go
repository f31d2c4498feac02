package rest_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent/rule"
	"switchboard/internal/apitest"
)

func TestAPIKeys(t *testing.T) {
	env := apitest.New(t)
	admin := env.NewUser(env.OrgID, access.RoleAdmin)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")

	created := admin.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "CI pipeline"}).
		ExpectStatus(t, http.StatusCreated)
	keyID := created.String("data.id")
	key := created.String("data.key")
	foreign := other.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "Theirs"}).
		ExpectStatus(t, http.StatusCreated).String("data.id")

	// newKey creates a key as admin and returns its id and full value.
	newKey := func(t *testing.T, body map[string]any) (string, string) {
		t.Helper()
		res := admin.Do(http.MethodPost, "/api/api-keys", body).ExpectStatus(t, http.StatusCreated)
		return res.String("data.id"), res.String("data.key")
	}

	t.Run("CreateShape", func(t *testing.T) {
		if !strings.HasPrefix(key, "whm_") || len(key) != 36 {
			t.Fatalf("key %q is not whm_ + 32 hex", key)
		}
		if got := created.String("data.key_prefix"); got != key[4:12] {
			t.Errorf("key_prefix = %q, want %q", got, key[4:12])
		}
		if created.String("data.name") != "CI pipeline" || created.Get("data.is_active") != true {
			t.Errorf("create: %s", created.Raw)
		}
		if _, err := uuid.Parse(keyID); err != nil {
			t.Errorf("id %q: %v", keyID, err)
		}
		if _, err := time.Parse(time.RFC3339, created.String("data.created_at")); err != nil {
			t.Errorf("created_at: %v", err)
		}
		data := created.Get("data").(map[string]any)
		for _, field := range []string{"expires_at", "last_used_at"} {
			if v, ok := data[field]; !ok || v != nil {
				t.Errorf("%s = %v (present %v), want null", field, v, ok)
			}
		}
	})
	t.Run("KeyAuthenticatesAsCreator", func(t *testing.T) {
		client := env.WithAPIKey(key)
		client.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		// The creator is an Admin, so the key may administer roles.
		roles := client.Do(http.MethodGet, "/api/roles", nil).ExpectStatus(t, http.StatusOK)
		if roles.Number("data.total") < 3 {
			t.Errorf("roles through the key: %s", roles.Raw)
		}
		client.Do(http.MethodGet, "/api/api-keys", nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("KeyCannotMintKeys", func(t *testing.T) {
		env.WithAPIKey(key).Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "Copy"}).
			ExpectError(t, http.StatusForbidden)
	})
	t.Run("KeyCarriesOnlyCreatorPermissions", func(t *testing.T) {
		env.Admin.Do(http.MethodPost, "/api/roles", map[string]any{
			"name": "Integrator", "permissions": []string{"api_keys:create", "teams:read"},
		}).ExpectStatus(t, http.StatusCreated)
		integrator := env.NewUser(env.OrgID, "Integrator")
		limited := integrator.Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "Limited"}).
			ExpectStatus(t, http.StatusCreated).String("data.key")
		client := env.WithAPIKey(limited)
		client.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		client.Do(http.MethodGet, "/api/roles", nil).ExpectError(t, http.StatusForbidden)
		client.Do(http.MethodGet, "/api/api-keys", nil).ExpectError(t, http.StatusForbidden)
	})
	t.Run("LastUsedAtSet", func(t *testing.T) {
		env.WithAPIKey(key).Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		got := admin.Do(http.MethodGet, "/api/api-keys/"+keyID, nil).ExpectStatus(t, http.StatusOK)
		used, err := time.Parse(time.RFC3339, got.String("data.last_used_at"))
		if err != nil {
			t.Fatalf("last_used_at not set: %s", got.Raw)
		}
		if time.Since(used) > time.Minute {
			t.Errorf("last_used_at %v is stale", used)
		}
	})
	t.Run("GetShapeHasNoSecret", func(t *testing.T) {
		got := admin.Do(http.MethodGet, "/api/api-keys/"+keyID, nil).ExpectStatus(t, http.StatusOK)
		data := got.Get("data").(map[string]any)
		for _, field := range []string{"id", "name", "key_prefix", "last_used_at", "expires_at", "is_active", "created_at"} {
			if _, ok := data[field]; !ok {
				t.Errorf("field %s missing: %s", field, got.Raw)
			}
		}
		if _, ok := data["key"]; ok || bytes.Contains(got.Raw, []byte(key)) {
			t.Errorf("the full key is returned again: %s", got.Raw)
		}
	})
	t.Run("StoredHashedOnly", func(t *testing.T) {
		row, err := env.Client().APIKey.Get(rule.Bypass(context.Background(), "test inspects storage"), uuid.MustParse(keyID))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(row.KeyHash, []byte(key)) || bytes.Contains(row.KeyHash, []byte(key[4:])) || len(row.KeyHash) != 32 {
			t.Errorf("key stored as %x, want a SHA-256 hash", row.KeyHash)
		}
		if row.KeyPrefix != key[4:12] {
			t.Errorf("stored prefix %q", row.KeyPrefix)
		}
	})
	t.Run("List", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/api-keys", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.limit") != 50 || res.Number("data.page") != 1 || res.Number("data.total") < 1 {
			t.Fatalf("list: %s", res.Raw)
		}
		if bytes.Contains(res.Raw, []byte(key)) {
			t.Errorf("list contains a full key: %s", res.Raw)
		}
		byName := admin.Do(http.MethodGet, "/api/api-keys?search=ci+PIPE", nil).ExpectStatus(t, http.StatusOK)
		if byName.Number("data.total") != 1 || byName.String("data.api_keys.0.id") != keyID {
			t.Errorf("search by name: %s", byName.Raw)
		}
		byPrefix := admin.Do(http.MethodGet, "/api/api-keys?search="+key[4:12], nil).ExpectStatus(t, http.StatusOK)
		if byPrefix.Number("data.total") != 1 || byPrefix.String("data.api_keys.0.id") != keyID {
			t.Errorf("search by prefix: %s", byPrefix.Raw)
		}
		theirs := admin.Do(http.MethodGet, "/api/api-keys?search=theirs", nil).ExpectStatus(t, http.StatusOK)
		if theirs.Number("data.total") != 0 {
			t.Errorf("another org's key listed: %s", theirs.Raw)
		}
		paged := admin.Do(http.MethodGet, "/api/api-keys?limit=1&page=1", nil).ExpectStatus(t, http.StatusOK)
		if paged.Len("data.api_keys") != 1 || paged.Number("data.limit") != 1 {
			t.Errorf("paging: %s", paged.Raw)
		}
	})
	t.Run("DisableEnable", func(t *testing.T) {
		client := env.WithAPIKey(key)
		off := admin.Do(http.MethodPut, "/api/api-keys/"+keyID, map[string]any{"is_active": false}).ExpectStatus(t, http.StatusOK)
		if off.Get("data.is_active") != false || off.String("data.id") != keyID {
			t.Fatalf("disable: %s", off.Raw)
		}
		client.Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
		on := admin.Do(http.MethodPut, "/api/api-keys/"+keyID, map[string]any{"is_active": true}).ExpectStatus(t, http.StatusOK)
		if on.Get("data.is_active") != true {
			t.Fatalf("enable: %s", on.Raw)
		}
		client.Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
	})
	t.Run("ExpiresAt", func(t *testing.T) {
		when := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		res := admin.Do(http.MethodPost, "/api/api-keys", map[string]any{
			"name": "Short-lived", "expires_at": when.Format(time.RFC3339),
		}).ExpectStatus(t, http.StatusCreated)
		got, err := time.Parse(time.RFC3339, res.String("data.expires_at"))
		if err != nil || !got.Equal(when) {
			t.Fatalf("expires_at = %q, want %v", res.String("data.expires_at"), when)
		}
		short := res.String("data.key")
		env.WithAPIKey(short).Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		err = env.Client().APIKey.UpdateOneID(uuid.MustParse(res.String("data.id"))).
			SetExpiresAt(time.Now().Add(-time.Minute)).
			Exec(rule.Bypass(context.Background(), "test expires a key"))
		if err != nil {
			t.Fatal(err)
		}
		env.WithAPIKey(short).Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("InvalidKeys", func(t *testing.T) {
		for name, k := range map[string]string{
			"Garbage":   "not-a-key",
			"WrongHex":  "whm_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
			"Unknown":   "whm_" + strings.Repeat("0", 32),
			"Truncated": key[:len(key)-1],
		} {
			t.Run(name, func(t *testing.T) {
				env.WithAPIKey(k).Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
			})
		}
	})
	t.Run("Unauthenticated", func(t *testing.T) {
		env.Anonymous().Do(http.MethodGet, "/api/api-keys", nil).ExpectError(t, http.StatusUnauthorized)
		env.Anonymous().Do(http.MethodPost, "/api/api-keys", map[string]any{"name": "x"}).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("BadInput", func(t *testing.T) {
		past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		cases := map[string]struct {
			method, path string
			body         any
		}{
			"Malformed":           {http.MethodPost, "/api/api-keys", `{`},
			"EmptyBody":           {http.MethodPost, "/api/api-keys", nil},
			"NameWrongType":       {http.MethodPost, "/api/api-keys", `{"name": 12}`},
			"NameMissing":         {http.MethodPost, "/api/api-keys", `{}`},
			"NameBlank":           {http.MethodPost, "/api/api-keys", map[string]any{"name": "  "}},
			"NameTooLong":         {http.MethodPost, "/api/api-keys", map[string]any{"name": strings.Repeat("n", 101)}},
			"ExpiresInPast":       {http.MethodPost, "/api/api-keys", map[string]any{"name": "Old", "expires_at": past}},
			"ExpiresNotRFC3339":   {http.MethodPost, "/api/api-keys", map[string]any{"name": "Bad", "expires_at": "tomorrow"}},
			"ExpiresWrongType":    {http.MethodPost, "/api/api-keys", `{"name": "Bad", "expires_at": 5}`},
			"UpdateMissingActive": {http.MethodPut, "/api/api-keys/" + keyID, `{}`},
			"UpdateActiveNull":    {http.MethodPut, "/api/api-keys/" + keyID, `{"is_active": null}`},
			"UpdateWrongType":     {http.MethodPut, "/api/api-keys/" + keyID, `{"is_active": "yes"}`},
			"UpdateMalformed":     {http.MethodPut, "/api/api-keys/" + keyID, `{`},
			"GetInvalidUUID":      {http.MethodGet, "/api/api-keys/nope", nil},
			"UpdateInvalidUUID":   {http.MethodPut, "/api/api-keys/nope", map[string]any{"is_active": true}},
			"DeleteInvalidUUID":   {http.MethodDelete, "/api/api-keys/nope", nil},
			"ListBadPage":         {http.MethodGet, "/api/api-keys?page=0", nil},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				admin.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusBadRequest)
			})
		}
	})
	t.Run("AgentForbidden", func(t *testing.T) {
		cases := map[string]struct {
			method, path string
			body         any
		}{
			"List":   {http.MethodGet, "/api/api-keys", nil},
			"Get":    {http.MethodGet, "/api/api-keys/" + keyID, nil},
			"Create": {http.MethodPost, "/api/api-keys", map[string]any{"name": "Mine"}},
			"Update": {http.MethodPut, "/api/api-keys/" + keyID, map[string]any{"is_active": false}},
			"Delete": {http.MethodDelete, "/api/api-keys/" + keyID, nil},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				agent.Do(tc.method, tc.path, tc.body).ExpectError(t, http.StatusForbidden)
			})
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		for name, id := range map[string]string{"Unknown": uuid.NewString(), "OtherOrg": foreign} {
			t.Run(name, func(t *testing.T) {
				admin.Do(http.MethodGet, "/api/api-keys/"+id, nil).ExpectError(t, http.StatusNotFound)
				admin.Do(http.MethodPut, "/api/api-keys/"+id, map[string]any{"is_active": false}).ExpectError(t, http.StatusNotFound)
				admin.Do(http.MethodDelete, "/api/api-keys/"+id, nil).ExpectError(t, http.StatusNotFound)
			})
		}
		theirs := other.Do(http.MethodGet, "/api/api-keys/"+foreign, nil).ExpectStatus(t, http.StatusOK)
		if theirs.Get("data.is_active") != true {
			t.Errorf("another org's key was changed: %s", theirs.Raw)
		}
	})
	t.Run("DeleteRevokes", func(t *testing.T) {
		id, k := newKey(t, map[string]any{"name": "Doomed"})
		env.WithAPIKey(k).Do(http.MethodGet, "/api/teams", nil).ExpectStatus(t, http.StatusOK)
		res := admin.Do(http.MethodDelete, "/api/api-keys/"+id, nil).ExpectStatus(t, http.StatusOK)
		if res.String("data.message") == "" {
			t.Errorf("delete: %s", res.Raw)
		}
		env.WithAPIKey(k).Do(http.MethodGet, "/api/teams", nil).ExpectError(t, http.StatusUnauthorized)
		admin.Do(http.MethodGet, "/api/api-keys/"+id, nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodDelete, "/api/api-keys/"+id, nil).ExpectError(t, http.StatusNotFound)
	})
}
