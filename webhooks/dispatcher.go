// Package webhooks delivers the organization's events to its outbound
// webhook subscriptions. WriteDeliveries (called by events.Bus.Record for
// the domain events that have a webhook name) stores one delivery per
// subscribed active subscription, in the caller's transaction, and after the
// commit queues a drain of each subscription it wrote to: the drain task
// claims the subscription's due deliveries a batch at a time, posts each
// batch concurrently (signed, through the SSRF guard), records the
// attempts in one transaction and retries on the contract's schedule. Recover
// and the periodic sweep queue again what a crash or a lost Redis left
// behind; Replay sends a finished delivery once more; PruneFinished deletes
// the finished deliveries older than the retention.
//
// Subscriptions holds the operations on the subscriptions themselves
// (create, update, delete, test, the deliveries' list and replay).
//
// The package owns the subscriptions, the delivery rows and their tasks.
// It uses outbound/ for the envelope, the signatures and the retry
// schedule, and netguard/ for the HTTP client and the URL checks; it must
// not import graph/ or rest/ (they call it).
package webhooks

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/netguard"
	"switchboard/outbound"
	"switchboard/secrets"
	"switchboard/worker"
)

// DeliveryTimeout bounds one delivery attempt, as the contract says.
const DeliveryTimeout = 15 * time.Second

// maxResponseBytes caps what is read of a receiver's answer; only its
// status matters.
const maxResponseBytes = 64 << 10

// ScheduleFunc decides what follows attempt number attempt (1 for the
// first) of a delivery, which ended with o at now.
type ScheduleFunc func(attempt int, o outbound.Outcome, now time.Time) outbound.Decision

// Options configure a Dispatcher.
type Options struct {
	Client *ent.Client
	// Secrets opens the subscriptions' signing secrets.
	Secrets *secrets.Box
	// Queue enqueues delivery tasks.
	Queue *worker.Client
	// AllowPrivate lets deliveries reach loopback and private addresses
	// (OUTBOUND_ALLOW_PRIVATE); it also decides which URLs ValidateURL
	// accepts.
	AllowPrivate bool
	Log          *slog.Logger
	// HTTP posts deliveries; nil builds an SSRF-guarded client with the
	// delivery timeout that does not follow redirects.
	HTTP *http.Client
	// Schedule decides retries; nil uses the contract's schedule with
	// outbound.DefaultJitter. Tests inject shorter delays.
	Schedule ScheduleFunc
	// CacheTTL is how long active subscriptions are cached; zero means
	// DefaultCacheTTL.
	CacheTTL time.Duration
	// Postgres: the database is PostgreSQL (deliveries and attempts are
	// inserted with one fixed statement, insert_pg.go).
	Postgres bool
	// Retention is how long PruneFinished keeps a finished delivery
	// (WEBHOOK_DELIVERY_RETENTION); zero keeps every one.
	Retention time.Duration
}

// Dispatcher emits events to outbound webhook subscriptions and delivers
// them. It is safe for concurrent use.
type Dispatcher struct {
	client       *ent.Client
	secrets      *secrets.Box
	queue        *worker.Client
	allowPrivate bool
	log          *slog.Logger
	http         *http.Client
	schedule     ScheduleFunc
	cache        *subscriptionCache
	postgres     bool
	retention    time.Duration
	running      runningDrains
}

var _ events.HookWriter = (*Dispatcher)(nil)

// New returns a Dispatcher. Register its task handler on the worker.
func New(o Options) *Dispatcher {
	d := &Dispatcher{
		client: o.Client, secrets: o.Secrets, queue: o.Queue, allowPrivate: o.AllowPrivate,
		log: o.Log, http: o.HTTP, schedule: o.Schedule, postgres: o.Postgres, retention: o.Retention,
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	d.log = d.log.With("component", "webhooks")
	if d.http == nil {
		d.http = netguard.NewClient(netguard.Options{
			AllowPrivate: o.AllowPrivate, Timeout: DeliveryTimeout,
			MaxResponseBytes: maxResponseBytes, MaxRedirects: netguard.NoRedirects,
		})
	}
	if d.schedule == nil {
		d.schedule = outbound.Scheduler{Jitter: outbound.DefaultJitter}.Next
	}
	d.cache = newSubscriptionCache(o.CacheTTL, d.loadActive)
	return d
}

// Register installs the delivery task handler on w.
func (d *Dispatcher) Register(w *worker.Worker) {
	w.HandleFunc(TaskDrain, d.handleDrain)
	w.HandleFunc(taskDeliverOne, func(context.Context, *asynq.Task) error { return nil })
}

// ValidateURL checks a subscription URL when it is saved: an absolute
// http(s) URL that, unless private destinations are allowed, does not name
// a loopback, private or metadata address. The error's message is meant
// for the user.
func (d *Dispatcher) ValidateURL(raw string) error {
	return netguard.ValidateURL(raw, d.allowPrivate)
}

// Invalidate forgets the cached subscriptions of an organization; the
// operations that change subscriptions call it after their commit.
func (d *Dispatcher) Invalidate(orgID uuid.UUID) {
	d.cache.invalidate(orgID)
}

// orgContext returns ctx when its viewer acts in orgID, else ctx with a
// system viewer of orgID (workers, and callers in another organization's
// name such as the inbound webhook).
func orgContext(ctx context.Context, orgID uuid.UUID) context.Context {
	if v := viewer.FromContext(ctx); v != nil && v.OrgID == orgID {
		return ctx
	}
	return viewer.SystemContext(ctx, orgID)
}

// db returns the transaction's client when ctx carries one, the root
// client otherwise.
func (d *Dispatcher) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, d.client) }

func now() time.Time { return time.Now().UTC() }
