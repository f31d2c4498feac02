package campaigns

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/campaign"
	"switchboard/ent/campaignrecipient"
	"switchboard/events"
	"switchboard/messaging"
)

// rank orders a recipient's delivery states; failed stands apart.
var rank = map[campaignrecipient.Status]int{
	campaignrecipient.StatusPending: 0, campaignrecipient.StatusSending: 0,
	campaignrecipient.StatusSent: 1, campaignrecipient.StatusDelivered: 2, campaignrecipient.StatusRead: 3,
}

// canAdvance reports whether a recipient in from may move to to: forward
// only (a read before its delivered moves it past both), and failed from
// pending, sending or sent (a message delivered or read does not fail).
func canAdvance(from, to campaignrecipient.Status) bool {
	if from == campaignrecipient.StatusFailed {
		return false
	}
	if to == campaignrecipient.StatusFailed {
		return rank[from] <= 1
	}
	r, ok := rank[to]
	return ok && r > 0 && rank[from] < r
}

// delta is how a campaign's counters move.
type delta struct{ sent, delivered, read, failed int }

func (d *delta) add(o delta) {
	d.sent += o.sent
	d.delivered += o.delivered
	d.read += o.read
	d.failed += o.failed
}

func (d delta) zero() bool { return d == delta{} }

// step is the counters a move from → to adds: every state it passes
// counts once (sent → read counts delivered and read).
func step(from, to campaignrecipient.Status) delta {
	if to == campaignrecipient.StatusFailed {
		return delta{failed: 1}
	}
	f, t := rank[from], rank[to]
	var d delta
	if f < 1 && t >= 1 {
		d.sent = 1
	}
	if f < 2 && t >= 2 {
		d.delivered = 1
	}
	if f < 3 && t >= 3 {
		d.read = 1
	}
	return d
}

// advance moves a locked recipient to to when that is forward, with its
// timestamps (and reason for failed), and returns the counters it adds.
func advance(ctx context.Context, db *ent.Client, r *ent.CampaignRecipient, to campaignrecipient.Status, at time.Time, reason string) (delta, error) {
	if !canAdvance(r.Status, to) {
		return delta{}, nil
	}
	d := step(r.Status, to)
	upd := db.CampaignRecipient.UpdateOne(r).SetStatus(to).ClearRetryAt()
	if to == campaignrecipient.StatusFailed {
		upd.SetErrorMessage(truncate(reason, maxReason))
	}
	if d.sent > 0 && r.SentAt == nil {
		upd.SetSentAt(at)
	}
	if d.delivered > 0 && r.DeliveredAt == nil {
		upd.SetDeliveredAt(at)
	}
	if d.read > 0 && r.ReadAt == nil {
		upd.SetReadAt(at)
	}
	if err := upd.Exec(ctx); err != nil {
		return delta{}, err
	}
	r.Status = to
	return d, nil
}

// addCounters adds d to the campaign's counters (one UPDATE, so
// concurrent writers add, never overwrite).
func addCounters(ctx context.Context, db *ent.Client, id uuid.UUID, d delta) error {
	if d.zero() {
		return nil
	}
	return db.Campaign.Update().Where(campaign.ID(id)).
		AddSentCount(d.sent).AddDeliveredCount(d.delivered).AddReadCount(d.read).AddFailedCount(d.failed).Exec(ctx)
}

// applyStatuses is the status hook messaging calls with each batch of an
// organization's status reports, in the transaction that applies them to
// the messages. Campaign sends are found by their callback data
// (campaign, recipient, attempt): a recipient still sending without a
// platform id (the sender crashed, or has not written it yet) is
// reconciled from it (its message stored, the id recorded) and never sent
// again. Each recipient moves forward only, under a row lock, so every
// counter moves exactly once per recipient and state, whatever the order
// or repetition of the reports.
func (s *Service) applyStatuses(ctx context.Context, db *ent.Client, orgID uuid.UUID, updates []messaging.StatusUpdate) ([]events.Event, error) {
	type report struct {
		u       messaging.StatusUpdate
		attempt int
		cid     uuid.UUID
	}
	byRecipient := map[uuid.UUID][]report{}
	var ids []uuid.UUID
	for _, u := range updates {
		if _, ok := rank[campaignrecipient.Status(u.Status)]; !ok && u.Status != string(campaignrecipient.StatusFailed) {
			continue
		}
		cid, rid, attempt, ok := parseCallback(u.CallbackData)
		if !ok {
			continue
		}
		if _, seen := byRecipient[rid]; !seen {
			ids = append(ids, rid)
		}
		byRecipient[rid] = append(byRecipient[rid], report{u: u, attempt: attempt, cid: cid})
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var rs []*ent.CampaignRecipient
	err := database.InChunks(ids, 1, func(part []uuid.UUID) error {
		got, err := s.lockRecipients(db.CampaignRecipient.Query().Where(database.AnyOfIDs(campaignrecipient.FieldID, part)).
			Order(ent.Asc(campaignrecipient.FieldID))).All(ctx)
		rs = append(rs, got...)
		return err
	})
	if err != nil {
		return nil, err
	}
	deltas := map[uuid.UUID]*delta{}
	senders := map[uuid.UUID]*sender{}
	for _, r := range rs {
		for _, rep := range byRecipient[r.ID] {
			if rep.cid != r.CampaignID || rep.attempt != r.Attempts {
				continue // a report of an earlier attempt (before a retry)
			}
			if r.ChatMessageID == nil {
				if r.Status != campaignrecipient.StatusSending || rep.u.ChatMessageID == "" {
					continue
				}
				if err := s.reconcile(ctx, db, r, rep.u.ChatMessageID, senders); err != nil {
					return nil, err
				}
			} else if *r.ChatMessageID != rep.u.ChatMessageID {
				continue
			}
			at := rep.u.Timestamp
			if at.IsZero() {
				at = s.now()
			}
			d, err := advance(ctx, db, r, campaignrecipient.Status(rep.u.Status), at, rep.u.Reason)
			if err != nil {
				return nil, err
			}
			if deltas[r.CampaignID] == nil {
				deltas[r.CampaignID] = &delta{}
			}
			deltas[r.CampaignID].add(d)
		}
	}
	for id, d := range deltas {
		if err := addCounters(ctx, db, id, *d); err != nil {
			return nil, err
		}
		if !d.zero() {
			id := id
			database.AfterCommit(ctx, func() { s.markProgress(orgID, id) })
		}
	}
	return nil, nil
}

// reconcile records the send of a recipient found sending without a
// platform id, from its status report: the message as the sender would
// have stored it, the id, and the sent counter.
func (s *Service) reconcile(ctx context.Context, db *ent.Client, r *ent.CampaignRecipient, wamid string, senders map[uuid.UUID]*sender) error {
	snd := senders[r.CampaignID]
	if snd == nil {
		c, err := db.Campaign.Get(ctx, r.CampaignID)
		if err != nil {
			return err
		}
		snd = &sender{s: s, c: c}
		if c.TemplateID != nil {
			if snd.t, err = db.Template.Get(ctx, *c.TemplateID); err != nil && !ent.IsNotFound(err) {
				return err
			}
		}
		senders[r.CampaignID] = snd
	}
	if snd.t == nil {
		// The template is gone: record the id and the counter only.
		if err := db.CampaignRecipient.UpdateOne(r).SetChatMessageID(wamid).Exec(ctx); err != nil {
			return err
		}
		d, err := advance(ctx, db, r, campaignrecipient.StatusSent, s.now(), "")
		if err != nil {
			return err
		}
		return addCounters(ctx, db, r.CampaignID, d)
	}
	p, err := snd.prepare(ctx, r)
	if err != nil {
		return err
	}
	s.log().Info("campaign send reconciled from its status webhook", "recipient_id", r.ID, "wamid", wamid)
	if err := s.attach(ctx, db, r, p, wamid); err != nil {
		return err
	}
	r.ChatMessageID = &wamid
	return nil
}

// progressDelay gathers a campaign's counter moves into one
// campaign:progress event at most this often per node.
const progressDelay = time.Second

// progressMarks are the campaigns whose progress event is due.
type progressMarks struct {
	mu      sync.Mutex
	pending map[uuid.UUID]bool
}

// markProgress records the campaign's progress event progressDelay from
// now with the counters of that moment, unless one is already due.
func (s *Service) markProgress(org, id uuid.UUID) {
	s.marks.mu.Lock()
	if s.marks.pending == nil {
		s.marks.pending = map[uuid.UUID]bool{}
	}
	if s.marks.pending[id] {
		s.marks.mu.Unlock()
		return
	}
	s.marks.pending[id] = true
	s.marks.mu.Unlock()
	time.AfterFunc(progressDelay, func() {
		s.marks.mu.Lock()
		delete(s.marks.pending, id)
		s.marks.mu.Unlock()
		s.progress(context.Background(), org, id)
	})
}
