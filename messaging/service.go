// Package messaging owns the message lifecycle. It sends messages to
// contacts (text, interactive, template and media): a send validates its
// input, checks the customer service window, stores the message pending in
// the caller's transaction and queues a task; the task's worker calls the
// provider, stores the platform's message id and moves the message to
// sent or failed. It stores what the platform delivers (StoreReceived:
// received messages, their senders' contacts, status reports), keeps the
// status machine (forward only, failed from any state), and builds the
// messages' and contacts' domain events. The REST and GraphQL operations
// (graph/), the inbound webhook (inbound/ parses and routes to it) and
// the background workers (chatbot, campaigns) share this package, so it
// must not import graph/, rest/ or inbound/.
package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/rule"
	"switchboard/events"
	"switchboard/media"
	"switchboard/provider"
	"switchboard/secrets"
	"switchboard/worker"
)

// TaskSend is the asynq task type that sends one stored outgoing message.
const TaskSend = "message:send"

// sendMaxRetry bounds the retries of a send; with RetryDelay they span
// about 13 minutes, after which the message is marked failed.
const sendMaxRetry = 10

// Service sends messages.
type Service struct {
	Client   *ent.Client
	Queue    *worker.Client
	Provider *provider.Client
	Secrets  *secrets.Box
	Media    *media.Store
	// Events records the domain events of sends and received messages.
	Events *events.Bus
	// FetchMedia queues the download of a received media message.
	FetchMedia func(ctx context.Context, org, message uuid.UUID)
	// Fetch downloads header_media_url files; it must be an SSRF-guarded
	// client (netguard.NewClient).
	Fetch *http.Client
	Log   *slog.Logger
	Now   func() time.Time
	// Postgres stores received messages with the array statements of
	// received_pg.go; otherwise with ent's builders.
	Postgres bool

	// statusHooks follow status reports (OnStatuses).
	statusHooks []StatusHook
	// outgoingHooks follow stored outgoing messages (OnOutgoing).
	outgoingHooks []OutgoingHook
	// receivedHooks follow stored received messages (OnReceived).
	receivedHooks []ReceivedHook
	// arrivalHandled marks received messages handled on insert
	// (OnArrivalHandled).
	arrivalHandled ArrivalHandled
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now().UTC()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// db returns the transaction's client when ctx carries one, the root
// client otherwise.
func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// inTx runs fn in the transaction ctx carries, or in a new one that is
// committed when fn succeeds. The ctx given to fn carries the transaction,
// so database.AfterCommit and Events.Record see it.
func (s *Service) inTx(ctx context.Context, fn func(ctx context.Context, db *ent.Client) error) error {
	return database.InTx(ctx, s.Client, fn)
}

// sendTask is the payload of TaskSend: ids only, the row is the truth.
type sendTask struct {
	OrgID     uuid.UUID `json:"organization_id"`
	MessageID uuid.UUID `json:"message_id"`
}

// enqueue queues the send of a stored message. A failure is only logged:
// the message stays pending and the recovery sweep queues it again.
func (s *Service) enqueue(ctx context.Context, orgID, messageID uuid.UUID) {
	payload, _ := json.Marshal(sendTask{OrgID: orgID, MessageID: messageID})
	_, err := s.Queue.Enqueue(ctx, asynq.NewTask(TaskSend, payload),
		asynq.TaskID("send:"+messageID.String()), asynq.Queue(worker.QueueCritical), asynq.MaxRetry(sendMaxRetry))
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		s.log().Error("queueing a message send; the recovery sweep will retry", "message_id", messageID, "err", err)
	}
}

// Register installs the send and read receipt handlers on w.
func (s *Service) Register(w *worker.Worker) {
	w.HandleFunc(TaskSend, s.handleSend)
	w.HandleFunc(TaskMarkRead, s.sendReadReceipt)
}

// Recover queues every outgoing message still pending without a platform
// id, so that a crash or a lost Redis loses no send. The server runs it at
// start and every minute; messages already queued keep their one task
// (same task id).
func (s *Service) Recover(ctx context.Context) (int, error) {
	ms, err := s.Client.Message.Query().
		Where(message.DirectionEQ(message.DirectionOutgoing), message.StatusEQ(message.StatusPending),
			message.ChatMessageIDIsNil()).
		Select(message.FieldID, message.FieldOrganizationID).
		All(rule.Bypass(ctx, "recovery sweep of pending sends in every organization"))
	if err != nil {
		return 0, err
	}
	for _, m := range ms {
		s.enqueue(ctx, m.OrganizationID, m.ID)
	}
	return len(ms), nil
}

// RetryDelay is the worker's retry schedule. Sends wait 1 s, 2 s, 4 s, ...
// up to 5 minutes, or the platform's Retry-After when that is longer (up
// to 15 minutes); other task types get asynq's default.
func RetryDelay(n int, err error, t *asynq.Task) time.Duration {
	if t.Type() != TaskSend {
		return asynq.DefaultRetryDelayFunc(n, err, t)
	}
	const ceiling, maxRetryAfter = 5 * time.Minute, 15 * time.Minute
	d := min(time.Second<<min(max(n, 0), 9), ceiling)
	var pe *provider.Error
	if errors.As(err, &pe) && pe.RetryAfter > d {
		d = min(pe.RetryAfter, maxRetryAfter)
	}
	return d
}
