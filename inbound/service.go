// Package inbound receives the platform's webhooks: it verifies the
// subscription and the signature of every delivery, makes the delivery
// durable in the database before acknowledging it, and processes it in a
// worker: messages of every type are stored once (unique platform message
// id), contacts are created or updated, and status updates move messages
// forward only.
package inbound

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/inboundevent"
	"switchboard/ent/rule"
	"switchboard/events"
	"switchboard/provider"
	"switchboard/secrets"
	"switchboard/worker"
)

// TaskProcess is the asynq task type that processes one stored delivery.
const TaskProcess = "inbound:process"

// Service receives and processes platform webhooks.
type Service struct {
	Client  *ent.Client
	Secrets *secrets.Box
	Queue   *worker.Client
	Events  *events.Bus
	// Provider sends read receipts for accounts that ask for them.
	Provider *provider.Client
	Log      *slog.Logger
	Now      func() time.Time
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

// Receive checks a delivery's signature and stores it durably, then queues
// its processing. A byte-identical redelivery is stored once. Deliveries
// for phone numbers no account has are logged and acknowledged. Errors:
// unauthenticated (bad or missing signature), invalid (not JSON).
func (s *Service) Receive(ctx context.Context, body []byte, signature string) error {
	p, err := parsePayload(body)
	if err != nil {
		return apperr.Invalidf("webhook body is not valid JSON")
	}
	bctx := rule.Bypass(ctx, "inbound webhook resolves accounts by phone number id")
	ids := p.phoneIDs()
	if len(ids) == 0 {
		s.Log.Info("webhook without phone number id acknowledged", "object", p.Object)
		return nil
	}
	accounts, err := s.Client.Account.Query().Where(account.PhoneIDIn(ids...)).All(bctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if len(accounts) == 0 {
		s.Log.Warn("webhook for unknown phone number ids acknowledged", "phone_number_ids", ids)
		return nil
	}
	if err := s.checkSignature(accounts, body, signature); err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	id := uuid.New()
	err = s.Client.InboundEvent.Create().SetID(id).SetPayload(body).
		SetOrganizationID(accounts[0].OrganizationID).SetAccountPhoneID(ids[0]).
		SetDedupeKey(hex.EncodeToString(sum[:])).
		OnConflictColumns(inboundevent.FieldDedupeKey).DoNothing().
		Exec(bctx)
	if isNoRows(err) {
		// Redelivered byte for byte: already stored (and queued).
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, "webhook event")
	}
	s.enqueue(ctx, id)
	return nil
}

// enqueue queues processing; a failure is only logged, because the stored
// event is picked up by the recovery sweep.
func (s *Service) enqueue(ctx context.Context, id uuid.UUID) {
	task := asynq.NewTask(TaskProcess, []byte(id.String()))
	_, err := s.Queue.Enqueue(ctx, task, asynq.TaskID("inbound:"+id.String()),
		asynq.Queue(worker.QueueCritical), asynq.MaxRetry(25))
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		s.Log.Error("queueing webhook processing; the recovery sweep will retry", "event_id", id, "err", err)
	}
}

// checkSignature requires a valid X-Hub-Signature-256 for every account
// that has an app secret.
func (s *Service) checkSignature(accounts []*ent.Account, body []byte, header string) error {
	got, ok := strings.CutPrefix(header, "sha256=")
	sig, err := hex.DecodeString(got)
	for _, a := range accounts {
		if len(a.AppSecretEncrypted) == 0 {
			continue
		}
		if !ok || err != nil {
			return apperr.New(apperr.Unauthenticated, "missing or malformed X-Hub-Signature-256")
		}
		secret, oerr := s.Secrets.Open(a.AppSecretEncrypted)
		if oerr != nil {
			return fmt.Errorf("inbound: opening app secret of account %s: %w", a.ID, oerr)
		}
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		if !hmac.Equal(mac.Sum(nil), sig) {
			return apperr.New(apperr.Unauthenticated, "invalid webhook signature")
		}
	}
	return nil
}

// isNoRows reports ent's answer to an upsert that did nothing.
func isNoRows(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no rows in result set")
}

// Register installs the processing handler on w.
func (s *Service) Register(w *worker.Worker) {
	w.HandleFunc(TaskProcess, func(ctx context.Context, t *asynq.Task) error {
		id, err := uuid.ParseBytes(t.Payload())
		if err != nil {
			return fmt.Errorf("inbound: bad task payload: %w: %w", err, asynq.SkipRetry)
		}
		return s.Process(ctx, id)
	})
	w.HandleFunc(TaskMarkRead, s.sendReadReceipt)
}

// Recover queues every stored delivery that is still pending, so that a
// crash or a lost Redis loses nothing. The server runs it at start.
func (s *Service) Recover(ctx context.Context) (int, error) {
	ids, err := s.Client.InboundEvent.Query().Where(inboundevent.StatusEQ(inboundevent.StatusPending)).
		IDs(rule.Bypass(ctx, "recovery sweep of stored webhook deliveries"))
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		s.enqueue(ctx, id)
	}
	return len(ids), nil
}
