// Package apikeys owns the organization's API keys as records: creating a
// key (its SHA-256 hash and display prefix are stored, the full key is
// shown once), listing and reading them, enabling, disabling and deleting
// them (which ends what the key holds open at once, through
// access.Revocations). Authenticating a request by its key is not here:
// package access does it (access/credentials.go) with the other
// credentials, reading the same rows. Transports (rest/, graph/) call its
// Service.
package apikeys

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/apikey"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// MaxNameLength bounds an API key's name (the column's limit).
const MaxNameLength = 100

// Service is the API keys' operations.
type Service struct {
	Client *ent.Client
	// Revocations ends the open sockets of a key that is disabled or
	// deleted.
	Revocations *access.Revocations
}

// CreateInput is a new key; a nil ExpiresAt never expires.
type CreateInput struct {
	Name      string
	ExpiresAt *time.Time
}

// Created is a new key with the full key, shown only this once.
type Created struct {
	APIKey *ent.APIKey
	Key    string
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Query returns the API keys of the viewer's organization matching search
// (name or key prefix, case-insensitive).
func (s *Service) Query(ctx context.Context, search string) *ent.APIKeyQuery {
	q := s.db(ctx).APIKey.Query()
	if t := strings.TrimSpace(search); t != "" {
		q = q.Where(apikey.Or(apikey.NameContainsFold(t), apikey.KeyPrefixContainsFold(t)))
	}
	return q
}

// List returns a page of Query, newest first, with the total of the
// filter.
func (s *Service) List(ctx context.Context, search string, offset, limit int) ([]*ent.APIKey, int, error) {
	q := s.Query(ctx, search).Order(ent.Desc(apikey.FieldCreatedAt), ent.Asc(apikey.FieldID))
	keys, total, err := database.OffsetPage(ctx, q, offset, limit)
	return keys, total, apperr.Wrap(err, "API key")
}

// Get returns one API key of the viewer's organization. Errors:
// not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.APIKey, error) {
	k, err := s.db(ctx).APIKey.Get(ctx, id)
	return k, apperr.Wrap(err, "API key")
}

// Create creates a key that acts as the viewer's user (with that user's
// permissions) in the viewer's organization. Only the key's SHA-256 hash
// and display prefix are stored; the full key is returned here and never
// again. A request authenticated by an API key cannot mint keys, so that
// revoking a leaked key cannot leave copies of its access behind. Errors:
// invalid (name missing or too long, expires_at not in the future, a
// viewer without a user), forbidden (the viewer is an API key).
func (s *Service) Create(ctx context.Context, in CreateInput) (*Created, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.Invalidf("an API key must be created by a user")
	}
	if v.APIKeyID != uuid.Nil {
		return nil, apperr.Forbiddenf("API keys cannot create API keys; sign in as a user to create one")
	}
	name, err := valid.RequiredText("name", in.Name, MaxNameLength)
	if err != nil {
		return nil, err
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
	k, err := s.db(ctx).APIKey.Create().
		SetName(name).SetKeyPrefix(prefix).SetKeyHash(hash).
		SetUserID(v.UserID).SetNillableExpiresAt(expires).
		Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "API key")
	}
	return &Created{APIKey: k, Key: full}, nil
}

// SetActive enables or disables a key; a disabled key is refused at once.
// Errors: not_found.
func (s *Service) SetActive(ctx context.Context, id uuid.UUID, active bool) (*ent.APIKey, error) {
	k, err := s.db(ctx).APIKey.UpdateOneID(id).SetIsActive(active).Save(ctx)
	if err == nil && !active {
		s.revoke(ctx, id)
	}
	return k, apperr.Wrap(err, "API key")
}

// Delete revokes a key irreversibly by deleting it. Errors: not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	if err := s.db(ctx).APIKey.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "API key")
	}
	s.revoke(ctx, id)
	return nil
}

// revoke ends what the key holds open on every node.
func (s *Service) revoke(ctx context.Context, id uuid.UUID) {
	s.Revocations.Publish(ctx, access.EndAPIKey(id))
}
