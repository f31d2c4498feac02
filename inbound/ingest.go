package inbound

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/inboundevent"
	"switchboard/ent/rule"
)

// Lanes is the number of processing lanes stored on events. A sender's
// deliveries always fall in the same lane, and a lane is processed in
// order, so one contact's messages are handled in sequence while lanes
// proceed in parallel.
const Lanes = 64

// accountTTL bounds how long a node keeps an account's signing secret
// in memory: a rotated app secret is honoured within this delay (the
// platform retries what is refused meanwhile).
const accountTTL = 5 * time.Second

// maxCommitBatch caps the deliveries stored by one INSERT.
const maxCommitBatch = 256

// commitWriters is how many INSERTs of deliveries may run at once.
const commitWriters = 2

// commitGather is the least time between the starts of one writer's
// commits.
const commitGather = 4 * time.Millisecond

// signer is an account as the ack path and the drainers need it: with
// its decrypted app secret (nil: the account checks no signature).
type signer struct {
	acc    *ent.Account
	secret []byte
}

type cachedPhone struct {
	signers []signer
	expires time.Time
}

// receiver holds the ack path's state: the account cache and the group
// commit of deliveries.
type receiver struct {
	mu     sync.Mutex
	phones map[string]cachedPhone
	// forgets counts ForgetAccounts calls: accounts read before one are
	// not cached after it.
	forgets uint64
	// loading shares one query among deliveries missing the same ids.
	loading singleflight.Group

	// queue feeds the group commit's writers; stopped ends them.
	queue     chan *delivery
	stopped   chan struct{}
	startOnce sync.Once
	stopOnce  sync.Once

	// signals wake this node's drainers (nil while they do not run).
	signals []chan struct{}
	// parsed hands the deliveries this node stored, parsed, to its
	// drainers.
	parsed   parsedCache
	node     string
	nodeOnce sync.Once
}

// delivery is one signed webhook waiting for its durable INSERT.
type delivery struct {
	payload []byte
	parsed  *payload // nil when only its envelope parsed
	org     uuid.UUID
	phoneID string
	key     string // dedupe key
	lane    int
	done    chan error
}

// Receive checks a delivery's signature and stores it durably before it
// returns, so the platform is acknowledged only for what the database
// holds. A byte-identical redelivery is stored once. Concurrent deliveries
// share INSERTs (group commit). Deliveries for phone numbers no account
// has are logged and acknowledged. Errors: unauthenticated (bad or
// missing signature), invalid (not JSON).
func (s *Service) Receive(ctx context.Context, body []byte, signature string) error {
	p, full, err := parseDelivery(body)
	if err != nil {
		return apperr.Invalidf("webhook body is not valid JSON")
	}
	ids := p.phoneIDs()
	var signers []signer
	switch {
	case len(ids) > 0:
		signers, err = s.signers(ctx, ids)
	case len(p.businessIDs()) > 0:
		// Template changes name the business account, not a phone number.
		signers, err = s.businessSigners(ctx, p.businessIDs())
	default:
		s.Log.Info("webhook without phone number id acknowledged", "object", p.object())
		return nil
	}
	if err != nil {
		return err
	}
	if len(signers) == 0 {
		s.Log.Warn("webhook for unknown phone number or business account ids acknowledged", "phone_number_ids", ids,
			"business_ids", p.businessIDs())
		return nil
	}
	if err := checkSignature(signers, body, signature); err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	key, lane := hex.EncodeToString(sum[:]), p.lane()
	d := &delivery{
		payload: body, parsed: full, org: signers[0].acc.OrganizationID, phoneID: signers[0].acc.PhoneID,
		key: key, lane: lane, done: make(chan error, 1),
	}
	return s.commit(ctx, d)
}

// commit hands d to the group commit and waits until it is stored. A
// few writers take whatever deliveries are waiting, up to
// maxCommitBatch, and store them with one INSERT: under load a commit
// carries many deliveries, at rest it carries one without delay.
func (s *Service) commit(ctx context.Context, d *delivery) error {
	r := &s.recv
	r.startOnce.Do(func() {
		r.queue = make(chan *delivery, 4*maxCommitBatch)
		r.stopped = make(chan struct{})
		for range commitWriters {
			go s.writer()
		}
	})
	select {
	case r.queue <- d:
	case <-r.stopped:
		return apperr.New(apperr.Unavailable, "the server is shutting down")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-d.done:
		return err
	case <-r.stopped:
		return apperr.New(apperr.Unavailable, "the server is shutting down")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writer stores waiting deliveries until Stop. Its commits start at
// least commitGather apart: under load each one then carries the
// deliveries of that interval, so the database sees a few hundred commits
// (and WAL flushes) a second instead of one for every delivery or two; a
// delivery arriving after a quiet moment is stored at once.
func (s *Service) writer() {
	r := &s.recv
	ctx := rule.Bypass(context.Background(), "storing inbound webhook deliveries")
	var last time.Time
	for {
		var first *delivery
		select {
		case first = <-r.queue:
		case <-r.stopped:
			return
		}
		if wait := commitGather - time.Since(last); wait > 0 {
			time.Sleep(wait)
		}
		last = time.Now()
		batch := []*delivery{first}
	fill:
		for len(batch) < maxCommitBatch {
			select {
			case d := <-r.queue:
				batch = append(batch, d)
			default:
				break fill
			}
		}
		s.store(ctx, batch)
	}
}

// Stop ends the group commit's writers; deliveries received afterwards
// are refused (the platform delivers them again).
func (s *Service) Stop() {
	r := &s.recv
	r.startOnce.Do(func() { r.stopped = make(chan struct{}) })
	r.stopOnce.Do(func() { close(r.stopped) })
}

// store INSERTs a batch of deliveries in one statement, answers every
// waiter, and wakes the lanes that have new work.
func (s *Service) store(ctx context.Context, batch []*delivery) {
	start := time.Now()
	err := s.insert(ctx, batch)
	s.observeCommit(len(batch), start)
	if err != nil {
		err = apperr.Wrap(err, "webhook event")
	}
	if err == nil && s.drainsHere() {
		s.recv.parsed.put(batch, time.Now())
	}
	lanes := make([]int, 0, len(batch))
	for _, d := range batch {
		d.done <- err
		lanes = append(lanes, d.lane)
	}
	if err == nil {
		s.wake(ctx, lanes)
	}
}

// insert stores the batch's distinct deliveries in dedupe-key order: two
// writers holding the same redelivered payload then wait for each other in
// one direction only, never in a deadlock.
func (s *Service) insert(ctx context.Context, batch []*delivery) error {
	sorted := slices.Clone(batch)
	slices.SortFunc(sorted, func(a, b *delivery) int { return strings.Compare(a.key, b.key) })
	sorted = slices.CompactFunc(sorted, func(a, b *delivery) bool { return a.key == b.key })
	if s.Postgres {
		return s.pgInsert(ctx, sorted)
	}
	builders := make([]*ent.InboundEventCreate, len(sorted))
	for i, d := range sorted {
		builders[i] = s.Client.InboundEvent.Create().SetPayload(d.payload).SetOrganizationID(d.org).
			SetAccountPhoneID(d.phoneID).SetDedupeKey(d.key).SetLane(d.lane)
	}
	return database.InChunks(builders, len(inboundevent.Columns), func(part []*ent.InboundEventCreate) error {
		return s.Client.InboundEvent.CreateBulk(part...).
			OnConflictColumns(inboundevent.FieldDedupeKey).DoNothing().Exec(ctx)
	})
}

// signers returns the accounts of phone number ids with their secrets,
// from a short-lived cache: neither the ack path nor a drainer's batch
// queries the database for them every time, and deliveries arriving
// together for ids not cached share one query (a burst of calls' webhooks
// after a cache flush would otherwise each take a connection).
func (s *Service) signers(ctx context.Context, ids []string) ([]signer, error) {
	r := &s.recv
	now := time.Now()
	var out, missing = []signer(nil), []string(nil)
	r.mu.Lock()
	for _, id := range ids {
		if c, ok := r.phones[id]; ok && now.Before(c.expires) {
			out = append(out, c.signers...)
		} else {
			missing = append(missing, id)
		}
	}
	r.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	loaded, err, _ := r.loading.Do(strings.Join(missing, ","), func() (any, error) {
		// Shared by every waiter: the first one's cancellation must not
		// fail the others.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), accountLoadTimeout)
		defer cancel()
		return s.loadSigners(lctx, missing)
	})
	if err != nil {
		return nil, err
	}
	for _, sgs := range loaded.(map[string][]signer) {
		out = append(out, sgs...)
	}
	return out, nil
}

// accountLoadTimeout bounds the shared query of signers.
const accountLoadTimeout = 10 * time.Second

// loadSigners reads the accounts of phone number ids and caches them.
func (s *Service) loadSigners(ctx context.Context, ids []string) (map[string][]signer, error) {
	r := &s.recv
	r.mu.Lock()
	forgets := r.forgets
	r.mu.Unlock()
	accounts, err := s.Client.Account.Query().Where(account.HeldPhoneIDIn(ids...)).
		All(rule.Bypass(ctx, "inbound webhook resolves accounts by phone number id"))
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	// Unknown ids are not cached: an account created a moment ago must
	// get its deliveries stored.
	fresh := map[string][]signer{}
	for _, a := range accounts {
		sg := signer{acc: a}
		if len(a.AppSecretEncrypted) > 0 {
			if sg.secret, err = s.Secrets.Open(a.AppSecretEncrypted); err != nil {
				return nil, fmt.Errorf("inbound: opening app secret of account %s: %w", a.ID, err)
			}
		}
		fresh[a.PhoneID] = append(fresh[a.PhoneID], sg)
	}
	expires := time.Now().Add(accountTTL)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phones == nil {
		r.phones = map[string]cachedPhone{}
	}
	// A change announced while the query ran may be missing from its
	// rows: use them this once, cache them not.
	if r.forgets == forgets {
		for id, sgs := range fresh {
			r.phones[id] = cachedPhone{signers: sgs, expires: expires}
		}
	}
	return fresh, nil
}

// businessSigners returns the accounts of business account ids with
// their secrets. Template changes are rare: no cache.
func (s *Service) businessSigners(ctx context.Context, ids []string) ([]signer, error) {
	accounts, err := s.Client.Account.Query().Where(account.BusinessIDIn(ids...), account.HeldPhoneIDNotNil()).
		Order(ent.Asc(account.FieldCreatedAt), ent.Asc(account.FieldID)).
		All(rule.Bypass(ctx, "inbound webhook resolves accounts by business account id"))
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	out := make([]signer, 0, len(accounts))
	for _, a := range accounts {
		sg := signer{acc: a}
		if len(a.AppSecretEncrypted) > 0 {
			if sg.secret, err = s.Secrets.Open(a.AppSecretEncrypted); err != nil {
				return nil, fmt.Errorf("inbound: opening app secret of account %s: %w", a.ID, err)
			}
		}
		out = append(out, sg)
	}
	return out, nil
}

// ForgetAccounts drops the cached accounts and signing secrets, so that
// the next delivery reads them again.
func (s *Service) ForgetAccounts() {
	s.recv.mu.Lock()
	s.recv.phones = nil
	s.recv.forgets++
	s.recv.mu.Unlock()
}

// ControlBus hands this node the control messages of every node
// (events.Bus).
type ControlBus interface {
	OnControl(name string, fn func(body []byte))
	OnResubscribe(fn func())
}

// ForgetAccountsOn drops the cached accounts whenever a node announces an
// account change on bus (accounts.ChangedMessage), so that a change
// (calling switched on or off, new credentials) applies to the next
// delivery on every node; and whenever this node's subscription comes
// back after an outage, as announcements may have been missed meanwhile.
func (s *Service) ForgetAccountsOn(bus ControlBus) {
	bus.OnControl(accounts.ChangedMessage, func([]byte) { s.ForgetAccounts() })
	bus.OnResubscribe(s.ForgetAccounts)
}

// checkSignature requires a valid X-Hub-Signature-256 for every account
// that has an app secret.
func checkSignature(signers []signer, body []byte, header string) error {
	got, ok := strings.CutPrefix(header, "sha256=")
	sig, err := hex.DecodeString(got)
	for _, a := range signers {
		if a.secret == nil {
			continue
		}
		if !ok || err != nil {
			return apperr.New(apperr.Unauthenticated, "missing or malformed X-Hub-Signature-256")
		}
		mac := hmac.New(sha256.New, a.secret)
		mac.Write(body)
		if !hmac.Equal(mac.Sum(nil), sig) {
			return apperr.New(apperr.Unauthenticated, "invalid webhook signature")
		}
	}
	return nil
}

// lane is the processing lane of a delivery: a hash of its first sender
// (or of the recipient of its first status), so one contact's deliveries
// share a lane.
func (p *envelope) lane() int {
	for _, e := range p.Entry {
		for _, c := range e.Changes {
			for _, m := range c.Value.Messages {
				if m.From != "" {
					return hashLane(m.From)
				}
			}
			for _, st := range c.Value.Statuses {
				if st.RecipientID != "" {
					return hashLane(st.RecipientID)
				}
			}
		}
	}
	return 0
}

func hashLane(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % Lanes)
}
