package graph

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/apikey"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// maxAPIKeyName bounds an API key's name (the column's limit).
const maxAPIKeyName = 100

// APIKeysQuery returns the API keys of the viewer's organization matching
// search (name or key prefix, case-insensitive).
func (r *Resolver) APIKeysQuery(ctx context.Context, search string) *ent.APIKeyQuery {
	q := r.db(ctx).APIKey.Query()
	if s := strings.TrimSpace(search); s != "" {
		q = q.Where(apikey.Or(apikey.NameContainsFold(s), apikey.KeyPrefixContainsFold(s)))
	}
	return q
}

// ListAPIKeys returns a page of APIKeysQuery, newest first, with the
// total of the filter.
func (r *Resolver) ListAPIKeys(ctx context.Context, search string, offset, limit int) ([]*ent.APIKey, int, error) {
	q := r.APIKeysQuery(ctx, search).Order(ent.Desc(apikey.FieldCreatedAt), ent.Asc(apikey.FieldID))
	return offsetPage(ctx, q, offset, limit, "API key")
}

// GetAPIKey returns one API key of the viewer's organization. Errors:
// not_found.
func (r *Resolver) GetAPIKey(ctx context.Context, id uuid.UUID) (*ent.APIKey, error) {
	k, err := r.db(ctx).APIKey.Get(ctx, id)
	return k, apperr.Wrap(err, "API key")
}

// CreateAPIKey creates a key that acts as the viewer's user (with that
// user's permissions) in the viewer's organization. Only the key's SHA-256
// hash and display prefix are stored; the full key is returned here and
// never again. A request authenticated by an API key cannot mint keys, so
// that revoking a leaked key cannot leave copies of its access behind.
// Errors: invalid (name missing or too long, expires_at not in the future,
// a viewer without a user), forbidden (the viewer is an API key).
func (r *Resolver) CreateAPIKey(ctx context.Context, in model.CreateAPIKeyInput) (*model.CreatedAPIKey, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.Invalidf("an API key must be created by a user")
	}
	if v.APIKeyID != uuid.Nil {
		return nil, apperr.Forbiddenf("API keys cannot create API keys; sign in as a user to create one")
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, apperr.Invalidf("name is required")
	}
	if utf8.RuneCountInString(name) > maxAPIKeyName {
		return nil, apperr.Invalidf("name must be at most %d characters", maxAPIKeyName)
	}
	var expires *time.Time
	if in.ExpiresAt != nil {
		if !in.ExpiresAt.After(time.Now()) {
			return nil, apperr.Invalidf("expires_at must be in the future")
		}
		t := in.ExpiresAt.UTC()
		expires = &t
	}
	full, prefix, hash := auth.GenerateAPIKey()
	k, err := r.db(ctx).APIKey.Create().
		SetName(name).SetKeyPrefix(prefix).SetKeyHash(hash).
		SetUserID(v.UserID).SetNillableExpiresAt(expires).
		Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "API key")
	}
	return &model.CreatedAPIKey{APIKey: k, Key: full}, nil
}

// SetAPIKeyActive enables or disables a key; a disabled key is refused at
// once. Errors: not_found.
func (r *Resolver) SetAPIKeyActive(ctx context.Context, id uuid.UUID, active bool) (*ent.APIKey, error) {
	k, err := r.db(ctx).APIKey.UpdateOneID(id).SetIsActive(active).Save(ctx)
	if err == nil && !active {
		r.Revocations.Publish(ctx, access.EndAPIKey(id))
	}
	return k, apperr.Wrap(err, "API key")
}

// DeleteAPIKey revokes a key irreversibly by deleting it. Errors:
// not_found.
func (r *Resolver) DeleteAPIKey(ctx context.Context, id uuid.UUID) error {
	if err := r.db(ctx).APIKey.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "API key")
	}
	r.Revocations.Publish(ctx, access.EndAPIKey(id))
	return nil
}
