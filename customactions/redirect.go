package customactions

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/auth"
)

// Redirect tokens of URL actions.
const (
	// RedirectPath is the path a token is appended to.
	RedirectPath = "/api/custom-actions/redirect/"
	// RedirectTokenTTL is how long a token can be redeemed (the spec's
	// 30 seconds).
	RedirectTokenTTL = 30 * time.Second
	// tombstoneTTL is how long a token is remembered after it was issued,
	// to answer 410 (used or expired) rather than 404 (never issued).
	tombstoneTTL = time.Hour
	// tokenBytes of randomness in a token (256 bits: the token is the
	// capability).
	tokenBytes = 32
	// maxTokenLength bounds what Redeem looks up.
	maxTokenLength = 128
)

// ErrRedirectGone is returned (with code gone) for a token that was used
// or has expired.
var ErrRedirectGone = apperr.New(apperr.Gone, "the redirect link has expired or was already used")

func (s *Service) ttl() time.Duration {
	if s.RedirectTTL > 0 {
		return s.RedirectTTL
	}
	return RedirectTokenTTL
}

func (s *Service) liveKey(token string) string { return s.Prefix + "customaction:redirect:" + token }
func (s *Service) seenKey(token string) string {
	return s.Prefix + "customaction:redirect-seen:" + token
}

// IssueRedirect stores target under a new random token valid for the TTL
// and returns the token. A tombstone kept for an hour lets Redeem tell a
// used or expired token from one never issued. Errors: unavailable (Redis).
func (s *Service) IssueRedirect(ctx context.Context, target string) (string, error) {
	token := auth.RandomToken(tokenBytes)
	_, err := s.Redis.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.liveKey(token), target, s.ttl())
		p.Set(ctx, s.seenKey(token), "1", tombstoneTTL)
		return nil
	})
	if err != nil {
		return "", apperr.New(apperr.Unavailable, "the redirect could not be stored; try again")
	}
	return token, nil
}

// Redeem returns the URL of a token and spends it: GETDEL makes a token
// work once even when many requests redeem it at the same time. Errors:
// not_found (never issued, or forgotten an hour later), gone (used or
// expired), unavailable (Redis).
func (s *Service) Redeem(ctx context.Context, token string) (string, error) {
	if token == "" || len(token) > maxTokenLength {
		return "", apperr.NotFoundf("redirect link not found")
	}
	target, err := s.Redis.GetDel(ctx, s.liveKey(token)).Result()
	if err == nil {
		return target, nil
	}
	if !errors.Is(err, redis.Nil) {
		return "", apperr.New(apperr.Unavailable, "the redirect could not be read; try again")
	}
	n, err := s.Redis.Exists(ctx, s.seenKey(token)).Result()
	if err != nil {
		return "", apperr.New(apperr.Unavailable, "the redirect could not be read; try again")
	}
	if n > 0 {
		return "", ErrRedirectGone
	}
	return "", apperr.NotFoundf("redirect link not found")
}
