package chatbot

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/chatbot/ai"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/chatbotsettings"
	"switchboard/ent/message"
	"switchboard/ent/predicate"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/flows"
	"switchboard/messaging"
	"switchboard/transfers"
	"switchboard/worker"
)

// This file is the bot's runtime plumbing. A received message is stored by
// the inbound drainers (messaging.StoreReceived); the bot's hook queues a
// task per contact once that commits, outside the webhook's
// acknowledgement. The task handles the contact's waiting messages one at
// a time, oldest first, each in its own transaction that holds the
// contact's lock (a PostgreSQL advisory lock, so no two workers on any
// node handle one contact at once) and marks the message handled
// (messages.bot_handled_at, the per-contact cursor) together with the
// replies it stores and the session it moves. A task that runs again, or a
// second task of the same contact, finds the message handled and does
// nothing: a message never gets a second reply. The replies are sent by
// messaging's own send tasks. What is not undone by a rollback: api_call
// requests and AI calls made before a crash are made again on the retry.

// TaskReply is the asynq task type that handles a contact's waiting
// messages.
const TaskReply = "chatbot:reply"

// Bounds of the runtime.
const (
	// replyMaxRetry bounds a reply task's retries.
	replyMaxRetry = 8
	// MaxMessageAge: older waiting messages are marked handled without
	// an answer (the service window has closed on them).
	MaxMessageAge = 24 * time.Hour
	// recoverAfter is how long a message may wait before the recovery
	// sweep queues its contact again.
	recoverAfter = 30 * time.Second
	// HistoryTurns is how much of the conversation the AI sees.
	HistoryTurns = 10
)

// Bot answers contacts' messages by the organization's chatbot
// configuration. Its fields are set once before use.
type Bot struct {
	Client    *ent.Client
	Config    *Service
	Messaging *messaging.Service
	Transfers *transfers.Service
	// Forms sends chat_flow nodes' platform form flows.
	Forms *flows.Service
	Queue *worker.Client
	// HTTP makes api_call, webhook and AI-context requests: an SSRF
	// guarded client (netguard).
	HTTP *http.Client
	Log  *slog.Logger
	Now  func() time.Time
	// Postgres takes per-contact advisory locks (several nodes); the
	// embedded SQLite has one process and one writer.
	Postgres bool

	// ai writes AI replies (SetAI); none answers with the fallback.
	ai    atomic.Pointer[replier]
	locks [64]sync.Mutex
	seed  maphash.Seed
	once  sync.Once
	// graphs caches parsed flow graphs by flow id and update time.
	graphs sync.Map
}

type replier struct{ ai.Replier }

// SetAI sets the AI vendors' client the bot asks for AI replies (nil:
// none, the fallback message answers). It may be called while the bot
// runs.
func (b *Bot) SetAI(r ai.Replier) {
	if r == nil {
		b.ai.Store(nil)
		return
	}
	b.ai.Store(&replier{r})
}

func (b *Bot) replier() ai.Replier {
	if r := b.ai.Load(); r != nil {
		return r.Replier
	}
	return nil
}

func (b *Bot) now() time.Time {
	if b.Now != nil {
		return b.Now().UTC()
	}
	return time.Now().UTC()
}

func (b *Bot) log() *slog.Logger {
	if b.Log != nil {
		return b.Log
	}
	return slog.New(slog.DiscardHandler)
}

// replyTask is TaskReply's payload: ids only.
type replyTask struct {
	OrgID     uuid.UUID `json:"organization_id"`
	ContactID uuid.UUID `json:"contact_id"`
}

// Register installs the reply handler on w and the hook on messaging that
// queues it.
func (b *Bot) Register(w *worker.Worker) {
	w.HandleFunc(TaskReply, b.handleTask)
	b.Messaging.OnReceived(b.received)
	b.Messaging.OnArrivalHandled(b.off)
}

// off reports whether the organization's chatbot is off: its received
// messages are then stored handled, so none is answered late if it is
// turned on afterwards, and nothing is queued for them.
func (b *Bot) off(ctx context.Context, orgID uuid.UUID) (bool, error) {
	ctx = viewer.SystemContext(ctx, orgID)
	on, err := database.ClientFor(ctx, b.Client).ChatbotSettings.Query().Where(chatbotsettings.Enabled(true)).Exist(ctx)
	return !on, err
}

// received queues, once the batch commits, one task per contact with new
// messages. A task lost between the commit and Redis is queued again by
// Recover. Messages stored already handled (the chatbot is off) queue
// nothing, nor do those settle marks handled at once.
func (b *Bot) received(ctx context.Context, orgID uuid.UUID, stored []messaging.StoredMessage) error {
	var waiting []messaging.StoredMessage
	for _, m := range stored {
		if !m.BotHandled {
			waiting = append(waiting, m)
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	waiting, err := b.settle(ctx, waiting)
	if err != nil || len(waiting) == 0 {
		return err
	}
	stored = waiting
	first := map[uuid.UUID]uuid.UUID{}
	order := make([]uuid.UUID, 0, len(stored))
	for _, m := range stored {
		if _, ok := first[m.ContactID]; !ok {
			first[m.ContactID] = m.ID
			order = append(order, m.ContactID)
		}
	}
	bg := context.WithoutCancel(ctx)
	// Queued in the background: the drainers' next batch does not wait
	// for Redis (a lost enqueue is found by Recover).
	database.AfterCommit(ctx, func() {
		go func() {
			for _, c := range order {
				b.enqueue(bg, orgID, c, first[c].String())
			}
		}()
	})
	return nil
}

// enqueue queues the handling of a contact's waiting messages; key makes
// the task unique (a message id).
func (b *Bot) enqueue(ctx context.Context, orgID, contactID uuid.UUID, key string) {
	payload, _ := json.Marshal(replyTask{OrgID: orgID, ContactID: contactID})
	_, err := b.Queue.Enqueue(ctx, asynq.NewTask(TaskReply, payload), asynq.TaskID("bot:"+key),
		asynq.Queue(worker.QueueCritical), asynq.MaxRetry(replyMaxRetry))
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) && !errors.Is(err, asynq.ErrDuplicateTask) {
		b.log().Error("queueing a chatbot reply; the recovery sweep will retry", "contact_id", contactID, "err", err)
	}
}

func (b *Bot) handleTask(ctx context.Context, t *asynq.Task) error {
	var p replyTask
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: chatbot reply payload: %v", asynq.SkipRetry, err)
	}
	ctx = viewer.SystemContext(ctx, p.OrgID)
	err := b.HandleContact(ctx, p.ContactID)
	if n, ok := asynq.GetRetryCount(ctx); err != nil && ok && n >= replyMaxRetry {
		// The last attempt failed: the oldest waiting message is given up
		// (no reply), so that it does not hold the contact's later ones.
		b.log().Error("chatbot gives up a message after its retries", "contact_id", p.ContactID, "err", err)
		if skipErr := b.skipOldest(ctx, p.ContactID); skipErr != nil {
			return errors.Join(err, skipErr)
		}
		b.enqueue(ctx, p.OrgID, p.ContactID, "after-skip:"+uuid.NewString())
	}
	return err
}

// skipOldest marks the contact's oldest waiting message handled without
// an answer.
func (b *Bot) skipOldest(ctx context.Context, contactID uuid.UUID) error {
	return database.InTx(ctx, b.Client, func(ctx context.Context, db *ent.Client) error {
		if err := b.lockContact(ctx, db, contactID); err != nil {
			return err
		}
		m, err := b.oldestWaiting(ctx, db, contactID)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return db.Message.UpdateOneID(m.ID).SetBotHandledAt(b.now()).Exec(ctx)
	})
}

// oldestWaiting is the contact's oldest incoming message the bot has not
// handled, with its contact.
func (b *Bot) oldestWaiting(ctx context.Context, db *ent.Client, contactID uuid.UUID) (*ent.Message, error) {
	return db.Message.Query().
		Where(message.ContactID(contactID), message.DirectionEQ(message.DirectionIncoming), message.BotHandledAtIsNil()).
		Order(message.ByCreatedAt(), message.ByID()).WithContact().First(ctx)
}

// HandleContact handles the contact's waiting messages in order, each in
// its own transaction. ctx carries the organization's system viewer. It
// is safe to call concurrently and repeatedly.
func (b *Bot) HandleContact(ctx context.Context, contactID uuid.UUID) error {
	for {
		done, err := b.handleNext(ctx, contactID)
		if err != nil || done {
			return err
		}
	}
}

// handleNext handles the contact's oldest waiting message under its lock;
// done when none waits.
func (b *Bot) handleNext(ctx context.Context, contactID uuid.UUID) (done bool, err error) {
	if !b.Postgres {
		mu := b.mutex(contactID)
		mu.Lock()
		defer mu.Unlock()
	}
	err = database.InTx(ctx, b.Client, func(ctx context.Context, db *ent.Client) error {
		if err := b.lockContact(ctx, db, contactID); err != nil {
			return err
		}
		m, err := b.oldestWaiting(ctx, db, contactID)
		if ent.IsNotFound(err) {
			done = true
			return nil
		}
		if err != nil {
			return err
		}
		if b.now().Sub(m.CreatedAt) <= MaxMessageAge {
			if err := b.dispatch(ctx, db, m); err != nil {
				return err
			}
		}
		return db.Message.UpdateOneID(m.ID).SetBotHandledAt(b.now()).Exec(ctx)
	})
	return done, err
}

// mutex is the in-process lock of a contact (one of a few stripes), for
// the embedded SQLite where advisory locks do not exist.
func (b *Bot) mutex(contactID uuid.UUID) *sync.Mutex {
	b.once.Do(func() { b.seed = maphash.MakeSeed() })
	return &b.locks[maphash.Bytes(b.seed, contactID[:])%uint64(len(b.locks))]
}

// lockContact takes the contact's transaction-scoped advisory lock on
// PostgreSQL: workers on other nodes handling the same contact wait.
func (b *Bot) lockContact(ctx context.Context, db *ent.Client, contactID uuid.UUID) error {
	if !b.Postgres {
		return nil
	}
	key := int64(binary.BigEndian.Uint64(contactID[8:]))
	rows, err := db.QueryContext(ctx, "SELECT pg_advisory_xact_lock($1)", key)
	if err != nil {
		return err
	}
	return rows.Close()
}

// Recover queues the contacts whose messages have waited longer than a
// moment (their task lost with Redis, or the process died between the
// commit and the queueing). The server runs it at start and every
// minute.
func (b *Bot) Recover(ctx context.Context) (int, error) {
	now := b.now()
	ms, err := b.Client.Message.Query().
		Where(message.DirectionEQ(message.DirectionIncoming), message.BotHandledAtIsNil(),
			message.CreatedAtGT(now.Add(-MaxMessageAge)), message.CreatedAtLT(now.Add(-recoverAfter))).
		Select(message.FieldID, message.FieldOrganizationID, message.FieldContactID).
		All(rule.Bypass(ctx, "recovery sweep of the chatbot's waiting messages in every organization"))
	if err != nil {
		return 0, err
	}
	seen := map[uuid.UUID]bool{}
	for _, m := range ms {
		if !seen[m.ContactID] {
			seen[m.ContactID] = true
			b.enqueue(ctx, m.OrganizationID, m.ContactID, "recover:"+m.ID.String())
		}
	}
	return len(seen), nil
}

// ExpireSessions moves the active sessions idle for longer than their
// organization's session_timeout_minutes to timeout. The server runs it
// every minute; a message arriving after the timeout also ends its
// session first. It sends one statement per distinct timeout, not per
// organization (one UPDATE each for 100 organizations was half of the
// minute's sweeps, 200 statements; at 10,000 organizations it would be
// 10,000 a minute). It reads the partial index of active sessions
// (database.ActiveSessionsIndex; TestExpirePlan), not the history of
// finished ones.
func (b *Bot) ExpireSessions(ctx context.Context) (int, error) {
	bypass := rule.Bypass(ctx, "session timeout sweep over every organization's settings")
	minutes, err := b.Client.ChatbotSettings.Query().Unique(true).
		Select(chatbotsettings.FieldSessionTimeoutMinutes).Ints(bypass)
	if err != nil {
		return 0, err
	}
	total := 0
	now := b.now()
	for _, m := range minutes {
		n, err := b.Client.ChatbotSession.Update().
			Where(chatbotsession.StatusEQ(chatbotsession.StatusActive),
				chatbotsession.LastActivityLT(now.Add(-sessionTimeout(m))), timeoutIs(m)).
			SetStatus(chatbotsession.StatusTimeout).SetCompletedAt(now).Save(bypass)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// timeoutIs selects the sessions of the organizations whose chatbot
// settings time sessions out after minutes.
func timeoutIs(minutes int) predicate.ChatbotSession {
	return func(s *sql.Selector) {
		t := sql.Table(chatbotsettings.Table)
		s.Where(sql.In(s.C(chatbotsession.FieldOrganizationID),
			sql.Select(t.C(chatbotsettings.FieldOrganizationID)).From(t).
				Where(sql.EQ(t.C(chatbotsettings.FieldSessionTimeoutMinutes), minutes))))
	}
}

func sessionTimeout(minutes int) time.Duration {
	return time.Duration(max(minutes, 1)) * time.Minute
}
