package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// UsedTokens remembers which single-use tokens (by jti) have been spent.
// The WebSocket handler calls MarkUsed after [Tokens.Parse] succeeds and
// accepts the token only when firstUse is true.
type UsedTokens interface {
	// MarkUsed records jti as used for ttl (at least the token's remaining
	// lifetime) and reports whether this was the first use. Concurrent
	// calls with the same jti return true for exactly one of them. On
	// error the caller must reject the token.
	MarkUsed(ctx context.Context, jti string, ttl time.Duration) (firstUse bool, err error)
}

// DefaultUsedTokensPrefix is the Redis key prefix [NewRedisUsedTokens] uses
// when given none.
const DefaultUsedTokensPrefix = "switchboard:auth:used:"

// RedisUsedTokens is a [UsedTokens] on Redis: one key per used jti, written
// with SET NX and an expiry, so the check-and-mark is atomic across
// instances and entries vanish once the token would have expired anyway.
type RedisUsedTokens struct {
	client redis.Cmdable
	prefix string
}

// NewRedisUsedTokens returns a RedisUsedTokens storing keys prefix+jti in
// client (typically a *redis.Client). An empty prefix means
// [DefaultUsedTokensPrefix].
func NewRedisUsedTokens(client redis.Cmdable, prefix string) *RedisUsedTokens {
	if prefix == "" {
		prefix = DefaultUsedTokensPrefix
	}
	return &RedisUsedTokens{client: client, prefix: prefix}
}

var _ UsedTokens = (*RedisUsedTokens)(nil)

// MarkUsed implements [UsedTokens] with SET prefix+jti 1 NX and a
// millisecond (or whole-second) expiry of ttl. It returns an error for an
// empty jti or a ttl below one millisecond: a key without expiry would never
// be removed.
func (r *RedisUsedTokens) MarkUsed(ctx context.Context, jti string, ttl time.Duration) (bool, error) {
	if jti == "" {
		return false, errors.New("auth: used token: empty jti")
	}
	if ttl < time.Millisecond {
		return false, fmt.Errorf("auth: used token: ttl %v below 1ms", ttl)
	}
	first, err := r.client.SetNX(ctx, r.prefix+jti, 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("auth: used token: %w", err)
	}
	return first, nil
}
