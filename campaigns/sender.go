package campaigns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"switchboard/internal/sleep"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/campaign"
	"switchboard/ent/campaignrecipient"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/messaging"
	"switchboard/pacing"
	"switchboard/provider"
)

// Timing of the sender.
const (
	// DefaultSendingTimeout bounds how long a recipient found in sending
	// (its platform call's outcome unknown: a crash or a timeout after
	// the request was written) waits for the platform's status webhook.
	// It is then marked failed, never sent again blindly (retry-failed
	// sends it again on request).
	DefaultSendingTimeout = 10 * time.Minute
	// watchInterval is how often the sender reads its campaign's status:
	// pause and cancel stop it within this (plus the sends in flight).
	watchInterval = 250 * time.Millisecond
	// usableEvery is how many watch ticks pass between checks of the
	// account and template (about 5 s).
	usableEvery = 20
	// pairRetry delays a recipient the platform refused for its pair rate
	// (131056: too many messages to one user).
	pairRetry = 10 * time.Second
	// throughputPause holds back every sender of a phone number after the
	// platform's throughput error (130429) without a Retry-After.
	throughputPause = 2 * time.Second
	maxBackoff      = 30 * time.Second
	callTimeout     = 30 * time.Second
	maxReason       = 1000
)

// callbackPrefix marks biz_opaque_callback_data of campaign sends:
// "cmp:<campaign id>:<recipient id>:<attempt>".
const callbackPrefix = "cmp:"

func callbackData(campaignID, recipientID uuid.UUID, attempt int) string {
	return fmt.Sprintf("%s%s:%s:%d", callbackPrefix, campaignID, recipientID, attempt)
}

// parseCallback reads callbackData's fields.
func parseCallback(s string) (campaignID, recipientID uuid.UUID, attempt int, ok bool) {
	rest, found := strings.CutPrefix(s, callbackPrefix)
	if !found {
		return uuid.Nil, uuid.Nil, 0, false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return uuid.Nil, uuid.Nil, 0, false
	}
	c, err1 := uuid.Parse(parts[0])
	r, err2 := uuid.Parse(parts[1])
	n, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return uuid.Nil, uuid.Nil, 0, false
	}
	return c, r, n, true
}

// sender is one run of a campaign.
type sender struct {
	s        *Service
	c        *ent.Campaign
	t        *ent.Template
	acc      provider.Account
	rate     float64
	fatal    atomic.Pointer[string]
	failures atomic.Int32
	// heldUntil is the end of this run's last 130429 hold: slots taken
	// before it are not used.
	heldUntil atomic.Pointer[time.Time]
	// stop ends the run's claims (the campaign left sending).
	stop context.CancelFunc
}

func (s *Service) sendingTimeout() time.Duration {
	s.tuneMu.RLock()
	defer s.tuneMu.RUnlock()
	if s.SendingTimeout > 0 {
		return s.SendingTimeout
	}
	return DefaultSendingTimeout
}

// handleRun is the TaskRun handler.
func (s *Service) handleRun(ctx context.Context, t *asynq.Task) error {
	tk, err := decodeTask(t)
	if err != nil {
		return err
	}
	return s.Run(ctx, tk.OrgID, tk.CampaignID)
}

// Run sends the pending recipients of a sending campaign, paced by the
// account's tier, until every recipient is final (the campaign is then
// completed), the campaign leaves sending (pause, cancel, delete: within
// watchInterval), its account or template becomes unusable (the campaign
// fails), or ctx ends (returned, so that the queue carries on later).
// It is idempotent: a recipient is claimed (pending → sending, in the
// database) before its platform call, by one run only.
func (s *Service) Run(ctx context.Context, org, id uuid.UUID) error {
	octx := viewer.SystemContext(ctx, org)
	c, err := s.Client.Campaign.Get(octx, id)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.Status != campaign.StatusSending {
		return nil
	}
	snd, err := s.newSender(octx, c)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Invalid {
			return s.fail(octx, id, errText(err))
		}
		return err
	}
	lease, ok, err := s.acquireRun(ctx, id)
	if err != nil || !ok {
		return err // !ok: a live run of another task sends it
	}
	defer s.releaseRun(lease)
	runCtx, stop := context.WithCancel(octx)
	defer stop()
	snd.stop = stop
	s.runs.add(id, snd)
	defer s.runs.remove(id, snd)
	go s.watch(runCtx, snd)
	p := snd.newPipeline(octx)
	defer p.close()
	size := min(claimSize(snd.rate), cap(p.sem))
	for {
		if reason := snd.fatal.Load(); reason != nil {
			p.quiesce()
			return s.fail(octx, id, *reason)
		}
		if runCtx.Err() != nil {
			p.quiesce()
			return ctx.Err()
		}
		n := p.room(runCtx, size)
		if n == 0 {
			continue
		}
		claimed, err := snd.claim(octx, n)
		if len(claimed) > n { // never: the pool's places would not add up
			for _, r := range claimed[n:] {
				snd.release(octx, r, nil)
			}
			claimed = claimed[:n]
		}
		p.free(n - len(claimed))
		if err != nil {
			p.quiesce()
			return err
		}
		if len(claimed) == 0 {
			// Nothing due: let the calls in flight finish and be
			// recorded, then see whether the campaign is done.
			p.quiesce()
			if c, err := s.Client.Campaign.Get(octx, id); err != nil || c.Status != campaign.StatusSending {
				stop() // paused, cancelled or deleted: no more claims
				continue
			}
			wait, done, err := s.settle(octx, id)
			if err != nil {
				return err
			}
			if done {
				return s.complete(octx, id)
			}
			_ = sleep.For(runCtx, wait)
			continue
		}
		p.dispatch(runCtx, octx, claimed)
	}
}

// newSender loads what a run needs. Errors: invalid (unusable account or
// template).
func (s *Service) newSender(ctx context.Context, c *ent.Campaign) (*sender, error) {
	if err := s.usable(ctx, s.Client, c); err != nil {
		return nil, err
	}
	t, err := s.Client.Template.Get(ctx, *c.TemplateID)
	if err != nil {
		return nil, err
	}
	a, err := s.Client.Account.Query().Where(account.Name(c.ChatAccount)).Only(ctx)
	if err != nil {
		return nil, err
	}
	token, err := s.Secrets.Open(a.AccessTokenEncrypted)
	if err != nil {
		return nil, apperr.Invalidf("the access token of account %q cannot be decrypted", a.Name)
	}
	return &sender{
		s: s, c: c, t: t, rate: pacing.TierRate(s.currentTier(ctx, a)),
		acc: provider.Account{PhoneID: a.PhoneID, BusinessID: a.BusinessID, AccessToken: string(token), APIVersion: a.APIVersion},
	}, nil
}

// tierTimeout bounds the platform call that refreshes a run's tier.
const tierTimeout = 10 * time.Second

// currentTier is the account's messaging limit tier as the platform
// reports it when the run starts (stored on the account by Tiers), or
// the stored one when the platform cannot say.
func (s *Service) currentTier(ctx context.Context, a *ent.Account) string {
	if s.Tiers == nil {
		return a.MessagingLimitTier
	}
	cctx, cancel := context.WithTimeout(ctx, tierTimeout)
	defer cancel()
	p, err := s.Tiers.Test(cctx, a.ID)
	if err != nil {
		s.log().Warn("refreshing the account's tier from the platform; pacing at the stored one",
			"account", a.Name, "tier", a.MessagingLimitTier, "err", err)
		return a.MessagingLimitTier
	}
	return p.MessagingLimitTier
}

// watch cancels the run when the campaign leaves sending (or is gone),
// reading its status every watchInterval, and fails it when its account
// or template becomes unusable (checked every usableEvery ticks).
func (s *Service) watch(ctx context.Context, snd *sender) {
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		c, err := s.Client.Campaign.Query().Where(campaign.ID(snd.c.ID)).Only(ctx)
		if ent.IsNotFound(err) || (err == nil && c.Status != campaign.StatusSending) {
			snd.stop()
			return
		}
		if err != nil || n%usableEvery != 0 {
			continue
		}
		if err := s.usable(ctx, s.Client, c); apperr.CodeOf(err) == apperr.Invalid {
			reason := errText(err)
			snd.fatal.CompareAndSwap(nil, &reason)
			snd.stop()
			return
		}
	}
}

// prepare builds the recipient's template message.
func (snd *sender) prepare(ctx context.Context, r *ent.CampaignRecipient) (*messaging.PreparedTemplate, error) {
	body, buttons := splitParams(r.TemplateParams)
	return snd.s.Messaging.PrepareTemplate(ctx, messaging.TemplateSend{
		Template: snd.t, AccountName: snd.c.ChatAccount, Phone: r.PhoneNumber,
		TemplateParams: body, HeaderParams: textMap(r.HeaderParams), ButtonParams: buttons,
		HeaderMediaID: snd.c.HeaderMediaID, HeaderFilename: snd.c.HeaderMediaFilename,
		CallbackData: callbackData(snd.c.ID, r.ID, r.Attempts),
	})
}

func textMap(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// Platform error codes that make the account or the template unusable
// for the whole campaign: 190 access token expired or invalid, 10 and 200
// permission, 131031 account locked, 131042 payment issue, 132001
// template missing, 132015 template paused, 132016 template disabled,
// 133010 phone number not registered.
var campaignFatalCodes = map[int]bool{
	190: true, 10: true, 200: true, 131031: true, 131042: true, 132001: true, 132015: true, 132016: true, 133010: true,
}

// failed handles a platform call that did not return a message id.
func (snd *sender) failed(ctx context.Context, r *ent.CampaignRecipient, err error) {
	s := snd.s
	var pe *provider.Error
	switch {
	case errors.As(err, &pe) && pe.Code == 130429:
		d := max(pe.RetryAfter, throughputPause)
		until := time.Now().Add(d)
		snd.heldUntil.Store(&until)
		_ = s.limiter().Slow(ctx, snd.acc.PhoneID, d)
		snd.release(ctx, r, nil)
	case errors.As(err, &pe) && pe.Code == 131056:
		wait := pairRetry
		s.tuneMu.RLock()
		if s.PairRetry > 0 {
			wait = s.PairRetry
		}
		s.tuneMu.RUnlock()
		at := s.now().Add(wait)
		snd.release(ctx, r, &at)
	case errors.As(err, &pe) && campaignFatalCodes[pe.Code]:
		reason := strings.TrimPrefix(pe.Error(), "provider: ")
		snd.fatal.CompareAndSwap(nil, &reason)
		snd.release(ctx, r, nil)
	case errors.As(err, &pe) && pe.Temporary():
		snd.backoff(ctx, pe.RetryAfter)
		snd.release(ctx, r, nil)
	case errors.As(err, &pe), errors.Is(err, provider.ErrInvalid):
		snd.finish(ctx, r, campaignrecipient.StatusFailed, strings.TrimPrefix(err.Error(), "provider: "))
	case notSent(err):
		snd.backoff(ctx, 0)
		snd.release(ctx, r, nil)
	default:
		// A timeout or a broken connection after the request was written:
		// the platform may have sent it. The recipient stays sending and
		// waits for the status webhook (bounded by SendingTimeout).
		s.log().Warn("campaign send outcome unknown; waiting for the status webhook", "recipient_id", r.ID, "err", err)
	}
}

// notSent tells network errors that prove the request never reached the
// platform (the connection was refused or could not be made).
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// backoff slows every sender of the phone number after a transient
// failure: 1 s, 2 s, 4 s ... up to maxBackoff, or the server's
// Retry-After.
func (snd *sender) backoff(ctx context.Context, retryAfter time.Duration) {
	n := snd.failures.Add(1)
	d := max(min(time.Second<<min(n-1, 5), maxBackoff), retryAfter)
	until := time.Now().Add(d)
	snd.heldUntil.Store(&until)
	_ = snd.s.limiter().Slow(ctx, snd.acc.PhoneID, d)
}

// release puts a claimed recipient back to pending (not sent), to be sent
// again at retryAt (nil: at once).
func (snd *sender) release(ctx context.Context, r *ent.CampaignRecipient, retryAt *time.Time) {
	upd := snd.s.Client.CampaignRecipient.Update().
		Where(campaignrecipient.ID(r.ID), campaignrecipient.StatusEQ(campaignrecipient.StatusSending),
			campaignrecipient.Attempts(r.Attempts)).
		SetStatus(campaignrecipient.StatusPending).ClearSendingAt()
	if retryAt != nil {
		upd.SetRetryAt(*retryAt)
	}
	if err := upd.Exec(ctx); err != nil {
		snd.s.log().Warn("releasing a campaign recipient", "recipient_id", r.ID, "err", err)
	}
}

// finish moves a claimed recipient to a final status with its counters.
func (snd *sender) finish(ctx context.Context, r *ent.CampaignRecipient, to campaignrecipient.Status, reason string) {
	s := snd.s
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		cur, err := s.lockRecipients(db.CampaignRecipient.Query().Where(campaignrecipient.ID(r.ID))).Only(ctx)
		if err != nil || cur.Attempts != r.Attempts {
			return err
		}
		d, err := advance(ctx, db, cur, to, s.now(), reason)
		if err != nil {
			return err
		}
		return addCounters(ctx, db, cur.CampaignID, d)
	})
	if err != nil {
		s.log().Warn("recording a campaign recipient's outcome", "recipient_id", r.ID, "err", err)
	}
	s.markProgress(r.OrganizationID, r.CampaignID)
}

// accepted records a send the platform accepted as wamid: the outgoing
// message (through messaging), the recipient sent with the id, and the
// sent counter, in one transaction. A recipient the status webhook
// already reconciled is left alone.
func (s *Service) accepted(ctx context.Context, recipientID uuid.UUID, attempt int, p *messaging.PreparedTemplate, wamid string) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		r, err := s.lockRecipients(db.CampaignRecipient.Query().Where(campaignrecipient.ID(recipientID))).Only(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if r.Attempts != attempt || r.ChatMessageID != nil || r.Status != campaignrecipient.StatusSending {
			return nil
		}
		return s.attach(ctx, db, r, p, wamid)
	})
}

// attach stores the message of a recipient's accepted send and moves the
// recipient to sent with its platform id. ctx carries the transaction of
// db, and r is locked.
func (s *Service) attach(ctx context.Context, db *ent.Client, r *ent.CampaignRecipient, p *messaging.PreparedTemplate, wamid string) error {
	m, err := s.Messaging.StoreSentTemplate(ctx, db, p, wamid)
	if err != nil {
		return err
	}
	if err := db.CampaignRecipient.UpdateOne(r).SetChatMessageID(wamid).SetMessageID(m.ID).Exec(ctx); err != nil {
		return err
	}
	d, err := advance(ctx, db, r, campaignrecipient.StatusSent, s.now(), "")
	if err != nil {
		return err
	}
	return addCounters(ctx, db, r.CampaignID, d)
}

// settle looks at a campaign without claimable recipients: recipients
// left sending past the bound are failed (their outcome unknown); it
// reports whether every recipient is final, else how long to wait.
func (s *Service) settle(ctx context.Context, id uuid.UUID) (time.Duration, bool, error) {
	now := s.now()
	stale, err := s.Client.CampaignRecipient.Query().
		Where(campaignrecipient.CampaignID(id), campaignrecipient.StatusEQ(campaignrecipient.StatusSending),
			campaignrecipient.SendingAtLT(now.Add(-s.sendingTimeout()))).All(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, r := range stale {
		snd := &sender{s: s}
		snd.finish(ctx, r, campaignrecipient.StatusFailed, fmt.Sprintf(
			"no answer from the platform within %s: the outcome of this send is unknown, so it was not sent again",
			s.sendingTimeout()))
	}
	open, err := s.Client.CampaignRecipient.Query().
		Where(campaignrecipient.CampaignID(id),
			campaignrecipient.StatusIn(campaignrecipient.StatusPending, campaignrecipient.StatusSending)).
		Order(ent.Asc(campaignrecipient.FieldRetryAt)).All(ctx)
	if err != nil {
		return 0, false, err
	}
	if len(open) == 0 {
		return 0, true, nil
	}
	wait := time.Second
	for _, r := range open {
		if r.Status == campaignrecipient.StatusPending && r.RetryAt != nil {
			wait = min(wait, max(r.RetryAt.Sub(now), 10*time.Millisecond))
		}
	}
	return wait, false, nil
}

// complete ends a sending campaign whose recipients are all final.
func (s *Service) complete(ctx context.Context, id uuid.UUID) error {
	return s.end(ctx, id, campaign.StatusCompleted, "")
}

// fail ends a sending campaign whose account or template became unusable.
func (s *Service) fail(ctx context.Context, id uuid.UUID, reason string) error {
	s.log().Warn("campaign failed", "campaign_id", id, "reason", reason)
	return s.end(ctx, id, campaign.StatusFailed, reason)
}

func (s *Service) end(ctx context.Context, id uuid.UUID, to campaign.Status, reason string) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		n, err := db.Campaign.Update().Where(campaign.ID(id), campaign.StatusEQ(campaign.StatusSending)).
			SetStatus(to).SetCompletedAt(s.now()).SetErrorMessage(truncate(reason, maxReason)).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		_, err = s.statusEvent(ctx, db, id)
		return err
	})
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// progress records the campaign's counters as a campaign:progress event.
func (s *Service) progress(ctx context.Context, org, id uuid.UUID) {
	c, err := s.Client.Campaign.Get(viewer.SystemContext(ctx, org), id)
	if err != nil {
		return
	}
	if err := s.record(ctx, events.Event{Type: events.CampaignProgress, OrgID: org, Payload: NewEvent(c)}); err != nil {
		s.log().Warn("recording campaign progress", "campaign_id", id, "err", err)
	}
}
