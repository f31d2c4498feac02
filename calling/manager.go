package calling

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/calling/audio"
	"switchboard/calling/media"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/events"
	"switchboard/kv"
	"switchboard/provider"
	"switchboard/secrets"
)

// PermissionReplies applies a user's answer to a call permission request
// (Service.ApplyPermissionReply).
type PermissionReplies interface {
	ApplyPermissionReply(ctx context.Context, orgID uuid.UUID, account, contactPhone string, accepted, permanent bool, expiresAt *time.Time) error
}

// Manager runs the live calls of this node: it answers the platform's
// calls, plays IVR menus, rings agents and bridges their browsers to the
// caller, holds, records and hangs up. A call's media (its PeerConnections)
// lives on the node that answered it; control requests for it arriving on
// any node are routed to that node through Redis (route.go).
type Manager struct {
	Client   *ent.Client
	Secrets  *secrets.Box
	Provider *provider.Client
	Engine   *media.Engine
	// Audio holds the organizations' hold music, ringback and IVR prompts.
	Audio       *audio.Store
	Events      *events.Bus
	Permissions PermissionReplies
	// Redis routes control requests to the node owning a call; Prefix
	// namespaces its keys and channels.
	Redis  *redis.Client
	Prefix string
	// NodeID names this node (random when empty).
	NodeID string
	// Recordings keeps finished recordings (nil disables recording);
	// RecordingWork is the local directory where a call's legs are
	// recorded and mixed before the result goes to Recordings.
	Recordings    RecordingStore
	RecordingWork string
	// HTTP makes the IVR's http_callback requests (the outbound guard's
	// client).
	HTTP *http.Client
	// Speech renders an IVR text prompt to an Ogg/Opus file (nil: text
	// prompts are skipped).
	Speech func(ctx context.Context, orgID uuid.UUID, text string) (string, error)
	// MediaTimeout bounds how long a user's call may take, after
	// pre_accept, to connect its media (ICE and DTLS) before it is
	// rejected; zero is DefaultMediaTimeout.
	MediaTimeout time.Duration
	Log          *slog.Logger
	Now          func() time.Time

	mu    sync.Mutex
	calls map[uuid.UUID]*liveCall // by call log id
	stop  context.CancelFunc
	wg    sync.WaitGroup

	// The recordings' background mixes (mixing.go): mixing counts those
	// queued or running, mixQueue holds a slot per running one, mixCtx
	// ends when Stop gives up waiting; mixStopped is set once Stop waits.
	mixMu      sync.Mutex
	mixing     sync.WaitGroup
	mixQueue   chan struct{}
	mixCtx     context.Context
	mixCancel  context.CancelFunc
	mixStopped bool
}

// DefaultMediaTimeout is how long a user's call may take to connect its
// media after pre_accept: ICE and DTLS take milliseconds to a second or two
// on a working path, so a call still silent after this never will be.
const DefaultMediaTimeout = 10 * time.Second

// Who or what ended a call: a call log's disconnected_by.
const (
	ByContact  = "contact"
	ByAgent    = "agent"
	BySystem   = "system"
	ByBusiness = "business" // the organization does not take calls
	// Media failures, logged failed: the caller's media did not connect
	// within MediaTimeout of pre_accept; the platform leg's connection
	// failed (ICE or DTLS); the agent browser's connection failed.
	ByMediaTimeout       = "media_timeout"
	ByContactMediaFailed = "contact_media_failed"
	ByAgentMediaFailed   = "agent_media_failed"
)

// ownerTTL is how long a node's claim on a call lasts without renewal;
// claims are renewed every ownerTTL/3, so a dead node's calls are found
// ended within about ownerTTL.
const ownerTTL = 15 * time.Second

func (m *Manager) mediaTimeout() time.Duration {
	if m.MediaTimeout > 0 {
		return m.MediaTimeout
	}
	return DefaultMediaTimeout
}

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now().UTC()
}

// Start begins serving control requests routed to this node and renewing
// its calls' claims, and mixes the recordings an earlier run left unmixed;
// Stop ends every live call of the node.
func (m *Manager) Start(ctx context.Context) error {
	if m.NodeID == "" {
		m.NodeID = uuid.NewString()
	}
	m.mu.Lock()
	m.calls = map[uuid.UUID]*liveCall{}
	m.mu.Unlock()
	m.mixMu.Lock()
	m.mixStopped, m.mixQueue = false, nil // a new queue and context at the first mix
	m.mixMu.Unlock()
	ctx, m.stop = context.WithCancel(context.WithoutCancel(ctx))
	sub, err := kv.Subscribe(ctx, m.Redis, m.controlChannel(m.NodeID), controlIdle)
	if err != nil {
		m.stop()
		return err
	}
	m.wg.Add(4)
	go func() { defer m.wg.Done(); m.recoverRecordings(ctx) }()
	go func() { defer m.wg.Done(); m.serveControl(ctx, sub) }()
	go func() { defer m.wg.Done(); every(ctx, ownerTTL/3, m.renewClaims) }()
	go func() { defer m.wg.Done(); every(ctx, sweepEvery, m.sweepOrphans) }()
	return nil
}

// Stop hangs up every live call of this node, stops its loops and waits
// for the recordings' mixes (at most mixStopWait; the rest are mixed at
// the next start).
func (m *Manager) Stop() {
	if m.stop == nil {
		return
	}
	for _, lc := range m.liveCalls() {
		lc.hangup(context.Background(), BySystem)
	}
	m.stop()
	m.wg.Wait()
	m.waitMixes()
}

func (m *Manager) liveCalls() []*liveCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*liveCall, 0, len(m.calls))
	for _, lc := range m.calls {
		out = append(out, lc)
	}
	return out
}

func (m *Manager) local(logID uuid.UUID) *liveCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[logID]
}

// register makes lc a live call of this node and claims it in Redis.
func (m *Manager) register(ctx context.Context, lc *liveCall) error {
	m.mu.Lock()
	m.calls[lc.logID] = lc
	m.mu.Unlock()
	return m.Redis.Set(ctx, m.ownerKey(lc.logID), m.NodeID, ownerTTL).Err()
}

// unregister forgets lc and releases its claim.
func (m *Manager) unregister(lc *liveCall) {
	m.mu.Lock()
	delete(m.calls, lc.logID)
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := m.Redis.Del(ctx, m.ownerKey(lc.logID)).Err(); err != nil {
		m.Log.Warn("releasing a call's claim failed", "call_log_id", lc.logID, "error", err)
	}
}

// renewClaims keeps this node's claims on its calls alive.
func (m *Manager) renewClaims(ctx context.Context) {
	for _, lc := range m.liveCalls() {
		if err := m.Redis.Set(ctx, m.ownerKey(lc.logID), m.NodeID, ownerTTL).Err(); err != nil && ctx.Err() == nil {
			m.Log.Warn("renewing a call's claim failed", "call_log_id", lc.logID, "error", err)
		}
	}
}

// every runs fn every d until ctx ends.
func every(ctx context.Context, d time.Duration, fn func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}

func (m *Manager) ownerKey(logID uuid.UUID) string { return m.Prefix + "call:owner:" + logID.String() }
func (m *Manager) controlChannel(node string) string {
	return m.Prefix + "call:control:" + node
}

// providerAccount is the platform credentials of acc.
func (m *Manager) providerAccount(acc *ent.Account) (provider.Account, error) {
	return accounts.Credentials(m.Secrets, acc)
}

// accountNamed loads the organization's account called name.
func (m *Manager) accountNamed(ctx context.Context, name string) (*ent.Account, error) {
	acc, err := m.Client.Account.Query().Where(account.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.Invalidf("chat_account %q is not an account of this organization", name)
	}
	return acc, err
}

// Holds reports whether this node holds the media of call logID.
func (m *Manager) Holds(logID uuid.UUID) bool { return m.local(logID) != nil }
