// Package inbound receives the platform's webhooks: it verifies the
// subscription and the signature of every delivery, makes the delivery
// durable in the database before acknowledging it, and drains the stored
// deliveries in lanes: it parses them and routes their messages and status
// reports to their organizations' messaging.Service.StoreReceived, which
// owns what storing them means. Nothing but the app's wiring and the
// webhook route may import it.
package inbound

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/rule"
	"switchboard/messaging"
	"switchboard/secrets"
	"switchboard/templates"
)

// Service receives platform webhooks and routes them to messaging.
type Service struct {
	Client  *ent.Client
	Secrets *secrets.Box
	// Messaging stores what the deliveries bring.
	Messaging *messaging.Service
	// Templates applies template status, quality and category changes
	// (nil: they are acknowledged and dropped).
	Templates *templates.Service
	// Calls takes the calls field's events and call permission replies
	// (nil: they are acknowledged and dropped).
	Calls CallEvents
	// Redis carries wakes between nodes (nil: one node).
	Redis  *redis.Client
	Prefix string
	// Postgres enables the advisory locks that keep a lane on one node,
	// and the vacuum of the deliveries table every VacuumEvery (default
	// DefaultVacuumEvery).
	Postgres    bool
	VacuumEvery time.Duration
	Log         *slog.Logger
	Now         func() time.Time

	recv        receiver
	metricsOnce sync.Once
	m           *metrics
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now().UTC()
}

// Verify answers the platform's subscription check: the challenge when the
// token is some account's webhook_verify_token. Errors: forbidden.
func (s *Service) Verify(ctx context.Context, mode, token, challenge string) (string, error) {
	if mode != "subscribe" || token == "" {
		return "", apperr.Forbiddenf("verification failed")
	}
	ok, err := s.Client.Account.Query().Where(account.WebhookVerifyToken(token)).
		Exist(rule.Bypass(ctx, "webhook verification finds the account by its verify token"))
	if err != nil {
		return "", apperr.Wrap(err, "account")
	}
	if !ok {
		return "", apperr.Forbiddenf("verification failed")
	}
	return challenge, nil
}
