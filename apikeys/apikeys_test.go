package apikeys_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apikeys"
	"switchboard/apperr"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
)

// TestCreate: who may mint a key and what a key's fields may be; only the
// hash and the prefix of the key are stored.
func TestCreate(t *testing.T) {
	db := testkit.OpenDB(t)
	s := &apikeys.Service{Client: db.Client}
	org, system := testkit.NewOrg(t, db.Client, "acme")
	user := testkit.NewMember(t, db.Client, org, "Owner", "api_keys:create")
	asKey := *viewer.FromContext(user)
	asKey.APIKeyID = uuid.New()
	viaKey := viewer.NewContext(context.Background(), &asKey)
	future, past := time.Now().Add(time.Hour), time.Now().Add(-time.Minute)

	for _, tc := range []struct {
		name    string
		ctx     context.Context
		in      apikeys.CreateInput
		code    apperr.Code
		message string
	}{
		{"OK", user, apikeys.CreateInput{Name: " CI ", ExpiresAt: &future}, "", ""},
		{"OKNameAtBound", user, apikeys.CreateInput{Name: strings.Repeat("x", apikeys.MaxNameLength)}, "", ""},
		{"ErrAPIKeyMintsKey", viaKey, apikeys.CreateInput{Name: "copy"}, apperr.Forbidden,
			"API keys cannot create API keys; sign in as a user to create one"},
		{"ErrNoUser", system, apikeys.CreateInput{Name: "bot"}, apperr.Invalid, "an API key must be created by a user"},
		{"ErrNameRequired", user, apikeys.CreateInput{Name: "  "}, apperr.Invalid, "name is required"},
		{"ErrNameTooLong", user, apikeys.CreateInput{Name: strings.Repeat("x", apikeys.MaxNameLength+1)}, apperr.Invalid,
			"name must be at most 100 characters"},
		{"ErrExpiresInPast", user, apikeys.CreateInput{Name: "old", ExpiresAt: &past}, apperr.Invalid,
			"expires_at must be in the future"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			created, err := s.Create(tc.ctx, tc.in)
			testkit.ExpectError(t, err, tc.code, tc.message)
			if tc.code != "" {
				return
			}
			k := created.APIKey
			hash := sha256.Sum256([]byte(created.Key))
			if !strings.HasPrefix(created.Key, "whm_") || !strings.Contains(created.Key, k.KeyPrefix) ||
				string(k.KeyHash) != string(hash[:]) || k.UserID != asKey.UserID || k.Name != strings.TrimSpace(tc.in.Name) {
				t.Fatalf("created %q: %+v", created.Key, k)
			}
		})
	}
}

// TestLifecycle: a key is found by its organization only; disabling and
// deleting it work without a revocation bus.
func TestLifecycle(t *testing.T) {
	db := testkit.OpenDB(t)
	s := &apikeys.Service{Client: db.Client}
	ctxOf := func(name string) context.Context {
		org, _ := testkit.NewOrg(t, db.Client, name)
		return testkit.NewMember(t, db.Client, org, "Owner", "api_keys:create")
	}
	mine, theirs := ctxOf("acme"), ctxOf("other")
	created, err := s.Create(mine, apikeys.CreateInput{Name: "deploy"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.APIKey.ID
	if _, err := s.Create(theirs, apikeys.CreateInput{Name: "theirs"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		want apperr.Code
	}{
		{"CrossTenantGet", func() error { _, err := s.Get(theirs, id); return err }, apperr.NotFound},
		{"CrossTenantDisable", func() error { _, err := s.SetActive(theirs, id, false); return err }, apperr.NotFound},
		{"CrossTenantDelete", func() error { return s.Delete(theirs, id) }, apperr.NotFound},
		{"Disable", func() error {
			k, err := s.SetActive(mine, id, false)
			if err == nil && k.IsActive {
				return errors.New("still active")
			}
			return err
		}, ""},
		{"ListSearchesPrefix", func() error {
			keys, total, err := s.List(mine, created.APIKey.KeyPrefix, 0, 10)
			if err == nil && (total != 1 || len(keys) != 1 || keys[0].ID != id) {
				return errors.New("the key is not listed by its prefix")
			}
			return err
		}, ""},
		{"Delete", func() error { return s.Delete(mine, id) }, ""},
		{"GoneAfterDelete", func() error { _, err := s.Get(mine, id); return err }, apperr.NotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.ExpectError(t, tc.run(), tc.want, "")
		})
	}
}
