// Package inbound receives the platform's webhooks: it verifies the
// subscription and the signature of every delivery, makes the delivery
// durable in the database before acknowledging it, and processes it in a
// worker: messages of every type are stored once (unique platform message
// id), contacts are created or updated, and status updates move messages
// forward only.
package inbound

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/rule"
	"switchboard/events"
	"switchboard/provider"
	"switchboard/secrets"
	"switchboard/worker"
)

// Service receives and processes platform webhooks.
type Service struct {
	Client  *ent.Client
	Secrets *secrets.Box
	Queue   *worker.Client
	// Events records the domain events of every processed batch.
	Events *events.Bus
	// Provider sends read receipts for accounts that ask for them.
	Provider *provider.Client
	// FetchMedia queues the download of an incoming media message.
	FetchMedia func(ctx context.Context, org, message uuid.UUID)
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

// isNoRows reports ent's answer to an upsert that did nothing.
func isNoRows(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no rows in result set")
}

// Register installs the task handlers on w.
func (s *Service) Register(w *worker.Worker) {
	w.HandleFunc(TaskMarkRead, s.sendReadReceipt)
}
