// Package app wires the whole application: configuration, database, Redis,
// the job queue and workers, the REST and GraphQL handlers. server.go runs
// it; end-to-end tests boot it in-process with New and Close.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"switchboard/accounts"
	"switchboard/chatbot"
	"switchboard/chatbot/ai"
	"switchboard/pacing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/analytics"
	"switchboard/apikeys"
	"switchboard/auth"
	"switchboard/calling"
	"switchboard/calling/audio"
	"switchboard/campaigns"
	"switchboard/canned"
	"switchboard/catalogs"
	"switchboard/config"
	"switchboard/contacts"
	"switchboard/customactions"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/events"
	"switchboard/flows"
	"switchboard/graph"
	"switchboard/inbound"
	"switchboard/kv"
	"switchboard/media"
	"switchboard/messaging"
	"switchboard/netguard"
	"switchboard/notes"
	"switchboard/people"
	"switchboard/provider"
	"switchboard/ratelimit"
	"switchboard/rest"
	"switchboard/roles"
	"switchboard/secrets"
	"switchboard/settings"
	"switchboard/sso"
	"switchboard/tags"
	"switchboard/teams"
	"switchboard/templates"
	"switchboard/transfers"
	"switchboard/webhooks"
	"switchboard/widgets"
	"switchboard/worker"
)

// Options are wiring choices that are not operator configuration.
type Options struct {
	// Namespace prefixes Redis keys and queue names, so that test
	// instances sharing one Redis do not collide.
	Namespace string
	// AutoMigrate creates the schema from the ent schema instead of the
	// versioned migrations (throwaway test databases).
	AutoMigrate bool
	// AI stands in for the AI vendors' clients (tests' fakes); nil uses
	// the clients of chatbot/ai on the AI_*_BASE_URL options.
	AI ai.Replier
}

// App is a running application.
type App struct {
	Cfg       *config.Config
	Log       *slog.Logger
	DB        *database.DB
	KV        *kv.Store
	Access    *access.Service
	Inbound   *inbound.Service
	Messaging *messaging.Service
	// Campaigns sends bulk campaigns.
	Campaigns *campaigns.Service
	// Bot answers contacts' messages (the chatbot's runtime).
	Bot *chatbot.Bot
	// Media fetches incoming messages' media into the local store.
	Media *media.Fetcher
	// Calls runs this node's live calls.
	Calls *calling.Manager
	// SSO runs single sign-on sign-ins.
	SSO *sso.Service
	// AI writes the chatbot's AI replies (OpenAI, Anthropic, Gemini).
	AI ai.Replier
	// Webhooks delivers events to outbound webhook subscriptions.
	Webhooks  *webhooks.Dispatcher
	Events    *events.Bus
	Resolver  *graph.Resolver
	Queue     *worker.Client
	Worker    *worker.Worker
	Handler   http.Handler
	Bootstrap *access.BootstrapResult
	Metrics   *Metrics

	server     *http.Server
	stopEvents context.CancelFunc
	// cancelLanes stops the inbound drainers and the recovery sweeps;
	// stopLanes receives once from each when it has stopped.
	cancelLanes context.CancelFunc
	stopLanes   chan struct{}
}

// startEvents subscribes this node to the event bus and waits until the
// subscription is live, so no event published after New is missed; and
// starts verifying open sockets again (access.Revocations.Run).
func (a *App) startEvents() {
	ctx, cancel := context.WithCancel(context.Background())
	a.stopEvents = cancel
	ready := make(chan struct{})
	go a.Events.Run(ctx, ready)
	go a.Access.Revocations.Run(ctx)
	select {
	case <-ready:
	case <-time.After(5 * time.Second):
		a.Log.Warn("event bus subscription not confirmed within 5s")
	}
}

// New opens every dependency, brings the schema up to date, bootstraps an
// empty database and builds the HTTP handler. It does not listen.
func New(ctx context.Context, cfg *config.Config, log *slog.Logger, o Options) (_ *App, err error) {
	if err := cfg.EnsureSecrets(); err != nil {
		return nil, err
	}
	a := &App{Cfg: cfg, Log: log}
	defer func() {
		if err != nil {
			_ = a.Close()
		}
	}()
	if a.DB, err = database.Open(ctx, database.Options{URL: cfg.DatabaseURL, DataDir: cfg.DataDir, Log: log}); err != nil {
		return nil, err
	}
	if o.AutoMigrate {
		err = a.DB.AutoMigrate(ctx)
	} else {
		err = a.DB.Migrate(ctx)
	}
	if err != nil {
		return nil, err
	}
	if a.KV, err = kv.Open(ctx, cfg.RedisURL, log); err != nil {
		return nil, err
	}
	tokens, err := auth.NewTokens([]byte(cfg.JWTSecret), auth.TokenOptions{
		AccessTTL: cfg.AccessTokenTTL, RefreshTTL: cfg.RefreshTokenTTL,
	})
	if err != nil {
		return nil, err
	}
	a.Access = &access.Service{
		Client: a.DB.Client, SQL: a.DB.SQL, Postgres: a.DB.Postgres(), Tokens: tokens,
		Redis: a.KV.Client(), Prefix: o.Namespace, Log: log,
	}
	if a.Bootstrap, err = access.Bootstrap(ctx, a.DB.Client, cfg.AdminEmail, cfg.AdminPassword, cfg.AdminOrgName); err != nil {
		return nil, err
	}
	a.Queue = worker.NewClient(a.KV.ConnOpt(), o.Namespace)
	a.Worker = worker.New(a.KV.ConnOpt(), worker.Options{
		Concurrency: cfg.WorkerConcurrency, Logger: log, QueuePrefix: o.Namespace,
		RetryDelay: messaging.RetryDelay,
	})
	box, err := secrets.NewBox(cfg.EncryptionKey)
	if err != nil {
		return nil, err
	}
	a.Resolver = &graph.Resolver{
		Client: a.DB.Client, Secrets: box,
		Provider: provider.New(provider.Options{BaseURL: cfg.ProviderBaseURL, Logger: log}),
	}
	a.Resolver.Accounts = &accounts.Service{Client: a.DB.Client, Secrets: box, Provider: a.Resolver.Provider}
	a.Webhooks = webhooks.New(webhooks.Options{
		Client: a.DB.Client, Secrets: box, Queue: a.Queue, AllowPrivate: cfg.OutboundAllowPrivate, Log: log,
		Postgres: a.DB.Postgres(), Retention: cfg.WebhookRetention,
	})
	a.Webhooks.Register(a.Worker)
	a.Resolver.Webhooks = &webhooks.Subscriptions{Client: a.DB.Client, Secrets: box, Dispatcher: a.Webhooks}
	a.Resolver.Settings = &settings.Service{Client: a.DB.Client, Secrets: box}
	a.Resolver.Teams = &teams.Service{Client: a.DB.Client}
	a.Resolver.Canned = &canned.Service{Client: a.DB.Client}
	// Every domain event goes through the bus: its webhook deliveries are
	// written by the dispatcher, its frame published to every node.
	a.Events = events.New(events.Options{
		Redis: a.KV.Client(), Channel: o.Namespace + "events", Hooks: a.Webhooks, Log: log,
	})
	// Changes that revoke access end the open sockets of every node
	// through the bus's channel.
	a.Access.Revocations = access.NewRevocations(a.Events, a.Access.Reauthorize, log)
	a.Resolver.Revocations = a.Access.Revocations
	// Account changes reach every node's inbound cache at once.
	a.Resolver.Accounts.Bus = a.Events
	a.Resolver.APIKeys = &apikeys.Service{Client: a.DB.Client, Revocations: a.Access.Revocations}
	a.Resolver.Roles = &roles.Service{Client: a.DB.Client, Revocations: a.Access.Revocations}
	a.Resolver.People = &people.Service{Client: a.DB.Client, Roles: a.Resolver.Roles, Revocations: a.Access.Revocations}
	a.startEvents()
	a.Resolver.Events = a.Events
	a.Resolver.Contacts = &contacts.Service{Client: a.DB.Client, Events: a.Events, Postgres: a.DB.Postgres()}
	a.Resolver.Tags = &tags.Service{Client: a.DB.Client, Events: a.Events}
	a.Resolver.Notes = &notes.Service{Client: a.DB.Client, Events: a.Events}
	a.Resolver.Widgets = &widgets.Service{Client: a.DB.Client}
	a.Resolver.Templates = &templates.Service{
		Client: a.DB.Client, Secrets: box, Provider: a.Resolver.Provider, Events: a.Events,
	}
	a.Resolver.Chatbot = &chatbot.Service{Client: a.DB.Client, Secrets: box}
	// The AI base URLs are operator configuration, like PROVIDER_BASE_URL,
	// not a user's: no netguard (a local LLM gateway must stay reachable).
	a.AI = ai.New(ai.Config{OpenAIBaseURL: cfg.AIOpenAIBaseURL, AnthropicBaseURL: cfg.AIAnthropicBaseURL,
		GoogleBaseURL: cfg.AIGoogleBaseURL, Logger: log})
	a.Resolver.CustomActions = &customactions.Service{
		Client: a.DB.Client, Redis: a.KV.Client(), Prefix: o.Namespace, AllowPrivate: cfg.OutboundAllowPrivate,
		HTTP: netguard.NewClient(netguard.Options{
			AllowPrivate: cfg.OutboundAllowPrivate, Timeout: customactions.WebhookTimeout,
			MaxResponseBytes: customactions.MaxResponseBytes,
		}),
	}
	a.Resolver.Transfers = &transfers.Service{Client: a.DB.Client, Events: a.Events}
	a.Resolver.Analytics = &analytics.Service{
		Client: a.DB.Client, Secrets: box, Provider: a.Resolver.Provider, Redis: a.KV.Client(), Prefix: o.Namespace,
		Postgres: a.DB.Postgres(), Queue: a.Queue,
	}
	// Past days' changes through ent mark their rollups stale; a periodic
	// task keeps them built (analytics/rollup.go).
	a.Resolver.Analytics.Track()
	a.Resolver.Analytics.Register(a.Worker)
	store := media.New(cfg.DataDir)
	a.Messaging = &messaging.Service{
		Client: a.DB.Client, Queue: a.Queue, Provider: a.Resolver.Provider, Secrets: box,
		Media: store, Events: a.Events, Log: log, Postgres: a.DB.Postgres(),
		Fetch: netguard.NewClient(netguard.Options{
			AllowPrivate: cfg.OutboundAllowPrivate, Timeout: time.Minute, MaxResponseBytes: messaging.MaxUploadBytes,
		}),
	}
	a.Messaging.Register(a.Worker)
	a.Resolver.Messaging = a.Messaging
	// Transfers' timers run on the workers; agents' messages record first
	// responses and restart client timers through messaging's hook.
	a.Resolver.Transfers.Queue, a.Resolver.Transfers.Sender, a.Resolver.Transfers.Log = a.Queue, a.Messaging, log
	a.Resolver.Transfers.Register(a.Worker)
	a.Messaging.OnOutgoing(a.Resolver.Transfers.Outgoing)
	a.Resolver.Flows = &flows.Service{
		Client: a.DB.Client, Secrets: box, Provider: a.Resolver.Provider, Messaging: a.Messaging,
	}
	// The chatbot answers stored messages from its own tasks, queued by a
	// hook on messaging once the drainers' batch commits; chat_flow nodes
	// send form flows through the flows service.
	a.Bot = &chatbot.Bot{
		Client: a.DB.Client, Config: a.Resolver.Chatbot, Messaging: a.Messaging, Transfers: a.Resolver.Transfers, Forms: a.Resolver.Flows,
		Queue: a.Queue, Log: log, Postgres: a.DB.Postgres(),
		HTTP: netguard.NewClient(netguard.Options{
			AllowPrivate: cfg.OutboundAllowPrivate, Timeout: chatbot.RequestTimeout, MaxResponseBytes: 1 << 20,
		}),
	}
	// Options.AI (tests' fakes) stands in for the vendors' clients.
	if o.AI != nil {
		a.AI = o.AI
	}
	a.Bot.SetAI(a.AI)
	a.Bot.Register(a.Worker)
	a.Resolver.Catalogs = &catalogs.Service{
		Client: a.DB.Client, Secrets: box, Provider: a.Resolver.Provider, Messaging: a.Messaging,
	}
	// Campaigns call the platform themselves (no in-process retries: the
	// sender paces, slows down and retries per the platform's errors).
	a.Campaigns = &campaigns.Service{
		Client: a.DB.Client, Queue: a.Queue, Secrets: box, Media: store, Messaging: a.Messaging,
		Events: a.Events, Limiter: pacing.New(a.KV.Client(), pacing.Options{Prefix: o.Namespace}), Log: log, Postgres: a.DB.Postgres(),
		RunLeases: ratelimit.NewLeases(a.KV.Client(), o.Namespace+"campaigns", campaigns.RunLeaseTTL), Tiers: a.Resolver.Accounts,
		Provider: provider.New(provider.Options{
			BaseURL: cfg.ProviderBaseURL, Logger: log, MaxRetries: -1, HTTPClient: campaigns.NewHTTPClient(),
		}),
	}
	a.Campaigns.Register(a.Worker)
	a.Resolver.Campaigns = a.Campaigns
	a.Media = &media.Fetcher{
		Client: a.DB.Client, Provider: a.Resolver.Provider, Secrets: box, Store: store,
		Tasks: a.Queue, Log: log,
	}
	a.Media.Register(a.Worker)
	// A stored media message queues its download after the commit; a
	// failure is left to the recovery sweep.
	a.Messaging.FetchMedia = func(ctx context.Context, org, id uuid.UUID) {
		if err := a.Media.Queue(ctx, org, id); err != nil {
			log.Warn("queueing a media fetch; the recovery sweep will retry it", "message_id", id, "err", err)
		}
	}
	// The platform's webhooks are parsed and routed by inbound and stored
	// by messaging.
	a.Inbound = &inbound.Service{
		Client: a.DB.Client, Secrets: box, Messaging: a.Messaging, Templates: a.Resolver.Templates, Log: log,
		Redis: a.KV.Client(), Prefix: o.Namespace, Postgres: a.DB.Postgres(),
	}
	a.Inbound.ForgetAccountsOn(a.Events)
	audioStore := audio.New(cfg.DataDir, audio.Converter{})
	if a.Resolver.Calling, err = newCalling(cfg, a.DB.Client, a.Messaging, audioStore); err != nil {
		return nil, err
	}
	if err := a.startCalls(cfg, o, box, audioStore); err != nil {
		_ = a.Close()
		return nil, fmt.Errorf("calling: %w", err)
	}
	a.Metrics = newMetrics(a)
	a.SSO = &sso.Service{
		Client: a.DB.Client, Secrets: box, Access: a.Access, Redis: a.KV.Client(), Prefix: o.Namespace,
		PublicURL: cfg.PublicURL,
		HTTP: netguard.NewClient(netguard.Options{
			AllowPrivate: cfg.OutboundAllowPrivate, Timeout: sso.IdPTimeout, MaxResponseBytes: 1 << 20,
		}),
	}
	api := &rest.API{
		R: a.Resolver, Access: a.Access, Inbound: a.Inbound, Events: a.Events, Log: log,
		Media:      a.Media.Store,
		Audio:      &audio.Service{Client: a.DB.Client, Store: audioStore},
		SSO:        a.SSO,
		Limiter:    ratelimit.New(a.KV.Client(), o.Namespace+"ratelimit"),
		UsedTokens: auth.NewRedisUsedTokens(a.KV.Client(), o.Namespace+"wsused:"),
		Sockets: rest.SocketLimits{
			Leases:  ratelimit.NewLeases(a.KV.Client(), o.Namespace+"sockets", 0),
			PerUser: cfg.WSMaxPerUser, PerAddress: cfg.WSMaxPerAddress,
		},
		Opts: rest.Options{
			CookieSecure: cfg.CookieSecure, RatePerMinute: cfg.RateLimitPerMinute,
			AnonRatePerMinute: cfg.RateLimitAnonPerMinute,
		},
	}
	if a.Handler, err = a.routes(api); err != nil {
		return nil, err
	}
	return a, nil
}

// Run serves HTTP on the configured address and runs the workers until ctx
// is done, then shuts down gracefully: it stops accepting, drains in-flight
// requests and tasks.
func (a *App) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", a.Cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", a.Cfg.ListenAddr, err)
	}
	return a.Serve(ctx, ln)
}

// Serve is Run on a given listener.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	if a.Cfg.RunsWorker() {
		if err := a.StartWorkers(ctx); err != nil {
			return err
		}
	}
	errc := make(chan error, 3)
	if a.Cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", a.Cfg.MetricsAddr)
		if err != nil {
			return fmt.Errorf("listen %s (METRICS_ADDR): %w", a.Cfg.MetricsAddr, err)
		}
		go func() { errc <- a.ServeMetrics(ctx, mln) }()
		a.Log.Info("serving /metrics", "addr", mln.Addr().String())
	}
	if a.Cfg.PprofAddr != "" {
		pln, err := net.Listen("tcp", a.Cfg.PprofAddr)
		if err != nil {
			return fmt.Errorf("listen %s (PPROF_ADDR): %w", a.Cfg.PprofAddr, err)
		}
		go func() { errc <- a.ServePprof(ctx, pln) }()
		a.Log.Info("serving /debug/pprof/", "addr", pln.Addr().String())
	}
	if a.Cfg.RunsHTTP() {
		a.server = a.NewHTTPServer()
		go func() { errc <- a.server.Serve(ln) }()
		a.Log.Info("listening", "addr", ln.Addr().String())
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = a.shutdown()
			return err
		}
	}
	return a.shutdown()
}

func (a *App) shutdown() error {
	a.Log.Info("shutting down")
	var err error
	if a.server != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = a.server.Shutdown(sctx)
	}
	if a.Cfg.RunsWorker() {
		a.StopWorkers()
	}
	return err
}

// StartWorkers starts the task workers and the inbound lanes, and queues
// again the stored work a crash or a lost Redis left pending (recovery
// sweeps).
func (a *App) StartWorkers(ctx context.Context) error {
	if err := a.Worker.Start(); err != nil {
		return fmt.Errorf("start workers: %w", err)
	}
	// The lanes drain stored platform webhooks, those left pending
	// included. While the process runs, Redis may lose its tasks (a
	// restart without persistence): every minute, overdue webhook
	// deliveries are queued again, and when Redis turns out to be another
	// instance (its run_id changed) so are pending sends and media
	// fetches. Work whose task still exists keeps that one task (task ids),
	// so a sweep never runs anything twice.
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.stopLanes = make(chan struct{}, 2)
	a.cancelLanes = cancel
	go func() { a.Inbound.Run(lctx); a.stopLanes <- struct{}{} }()
	go func() {
		// What a previous process left is queued again in the background:
		// under load that is thousands of tasks, and a node restarting
		// must serve (and acknowledge the platform's webhooks) at once.
		a.recover(lctx, "pending sends", a.Messaging.Recover)
		a.recover(lctx, "media fetches", a.Media.Recover)
		a.recover(lctx, "webhook deliveries", a.Webhooks.Recover)
		a.recover(lctx, "campaigns", a.Campaigns.Recover)
		a.recover(lctx, "transfer timers", a.Resolver.Transfers.Recover)
		a.recover(lctx, "chatbot replies", a.Bot.Recover)
		a.sweepEvery(lctx, SweepInterval, a.redisRunID, sweeps{
			"overdue webhook deliveries":                       a.Webhooks.RequeueOverdue,
			"finished webhook deliveries past their retention": a.Webhooks.PruneFinished,
			"campaigns":                            a.Campaigns.Recover,
			"overdue transfer timers":              a.Resolver.Transfers.RequeueOverdue,
			"chatbot replies":                      a.Bot.Recover,
			"chatbot session timeouts":             a.Bot.ExpireSessions,
			"analytics rollups":                    a.Resolver.Analytics.ScheduleRollups,
			"expired refresh tokens":               a.Access.PruneExpired,
			"parked statuses past their retention": a.Messaging.PruneParked,
		}, sweeps{
			"pending sends": a.Messaging.Recover, "media fetches": a.Media.Recover,
			"webhook deliveries": a.Webhooks.Recover, "transfer timers": a.Resolver.Transfers.Recover,
		})
		a.stopLanes <- struct{}{}
	}()
	return nil
}

// SweepInterval is how often the running server sweeps for work whose task
// Redis lost.
const SweepInterval = time.Minute

// sweeps are recovery sweeps by what they recover.
type sweeps map[string]func(context.Context) (int, error)

// sweepEvery runs always every interval, and afterLoss when the Redis
// instance changed since the previous tick (runID answers it; an error
// leaves it unknown), until ctx is done.
func (a *App) sweepEvery(ctx context.Context, interval time.Duration, runID func(context.Context) (string, error), always, afterLoss sweeps) {
	last, _ := runID(ctx)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		run := always
		if id, err := runID(ctx); err == nil && id != last {
			if last != "" {
				a.Log.Warn("Redis is a new instance; queueing again the work it may have lost")
				run = maps.Clone(always)
				maps.Copy(run, afterLoss)
			}
			last = id
		}
		for what, sweep := range run {
			a.recover(ctx, what, sweep)
		}
	}
}

// redisRunID identifies the Redis server instance: it changes when Redis
// restarts (or fails over).
func (a *App) redisRunID(ctx context.Context) (string, error) {
	info, err := a.KV.Client().Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(info, "\n") {
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "run_id:"); ok {
			return id, nil
		}
	}
	return "", errors.New("no run_id in INFO server")
}

// recover runs one recovery sweep; a failure is logged (the next sweep
// tries again).
func (a *App) recover(ctx context.Context, what string, sweep func(context.Context) (int, error)) {
	if n, err := sweep(ctx); err != nil {
		if ctx.Err() == nil {
			a.Log.Error("recovery sweep of "+what, "err", err)
		}
	} else if n > 0 {
		a.Log.Info("sweep of "+what, "count", n)
	}
}

// StopWorkers stops the inbound lanes, then the task workers once their
// running tasks are done.
func (a *App) StopWorkers() {
	if a.cancelLanes != nil {
		a.cancelLanes()
		<-a.stopLanes
		<-a.stopLanes
		a.cancelLanes = nil
	}
	if a.Worker != nil {
		a.Worker.Shutdown()
	}
}

// Close releases every dependency.
func (a *App) Close() error {
	var errs []error
	if a.stopEvents != nil {
		a.stopEvents()
	}
	if a.Inbound != nil {
		a.Inbound.Stop()
	}
	if a.Calls != nil {
		a.Calls.Stop()
		errs = append(errs, a.Calls.Engine.Close())
	}
	if a.Queue != nil {
		errs = append(errs, a.Queue.Close())
	}
	if a.Events != nil {
		// Everything that publishes has stopped: a clean stop.
		a.Events.Leave()
	}
	if a.KV != nil {
		errs = append(errs, a.KV.Close())
	}
	if a.DB != nil {
		errs = append(errs, a.DB.Close())
	}
	return errors.Join(errs...)
}

// newCalling builds voice calling's data service: ICE configuration,
// recordings under DATA_DIR/recordings and their signed links under
// PUBLIC_URL, keyed from ENCRYPTION_KEY.
func newCalling(cfg *config.Config, db *ent.Client, msg *messaging.Service, audioStore *audio.Store) (*calling.Service, error) {
	signer, err := calling.NewURLSigner(cfg.PublicURL, cfg.EncryptionKey)
	if err != nil {
		return nil, err
	}
	return &calling.Service{
		Client: db, Messaging: msg, Audio: audioStore, AllowPrivate: cfg.OutboundAllowPrivate,
		ICE: calling.ICEConfig{
			STUNURLs: cfg.STUNURLs, TURNURLs: cfg.TURNURLs, TURNSecret: cfg.TURNSecret, TURNTTL: cfg.TURNTTL,
		},
		Recordings:    calling.LocalRecordings{Dir: filepath.Join(cfg.DataDir, "recordings")},
		RecordingURLs: signer,
	}, nil
}
