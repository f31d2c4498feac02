package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/campaign"
	"switchboard/ent/campaignrecipient"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/messaging"
	"switchboard/worker"
)

// Task types of campaigns.
const (
	// TaskStart starts a scheduled campaign at its time.
	TaskStart = "campaign:start"
	// TaskRun sends a campaign's pending recipients.
	TaskRun = "campaign:run"
)

// runTimeout bounds one run task; a longer campaign is carried on by the
// task's retry (or the recovery sweep) from where it stopped.
const runTimeout = 6 * time.Hour

// task is the payload of the campaign tasks: ids only, the row is the
// truth.
type task struct {
	OrgID      uuid.UUID `json:"organization_id"`
	CampaignID uuid.UUID `json:"campaign_id"`
}

// Event is the payload of a campaign's events (campaign:status,
// campaign:progress, their webhooks and the GraphQL subscription).
type Event struct {
	ID              uuid.UUID  `json:"id"`
	Name            string     `json:"name"`
	Status          string     `json:"status"`
	TotalRecipients int        `json:"total_recipients"`
	SentCount       int        `json:"sent_count"`
	DeliveredCount  int        `json:"delivered_count"`
	ReadCount       int        `json:"read_count"`
	FailedCount     int        `json:"failed_count"`
	ErrorMessage    string     `json:"error_message"`
	StartedAt       *time.Time `json:"started_at"`
	CompletedAt     *time.Time `json:"completed_at"`
}

// NewEvent is the event payload of c.
func NewEvent(c *ent.Campaign) Event {
	return Event{
		ID: c.ID, Name: c.Name, Status: string(c.Status), TotalRecipients: c.TotalRecipients,
		SentCount: c.SentCount, DeliveredCount: c.DeliveredCount, ReadCount: c.ReadCount, FailedCount: c.FailedCount,
		ErrorMessage: c.ErrorMessage, StartedAt: c.StartedAt, CompletedAt: c.CompletedAt,
	}
}

// record records events in the transaction ctx carries.
func (s *Service) record(ctx context.Context, evs ...events.Event) error {
	if s.Events == nil || len(evs) == 0 {
		return nil
	}
	return s.Events.Record(ctx, evs...)
}

// statusEvent reads c again and records its campaign:status event.
func (s *Service) statusEvent(ctx context.Context, db *ent.Client, id uuid.UUID) (*ent.Campaign, error) {
	c, err := s.reload(ctx, db, id)
	if err != nil {
		return nil, err
	}
	return c, s.record(ctx, events.Event{Type: events.CampaignStatusChanged, OrgID: c.OrganizationID, Payload: NewEvent(c)})
}

// Start starts a draft campaign, or resumes a paused or failed one. A
// draft whose scheduled_at is in the future becomes scheduled and starts
// at that time (once, whichever node runs the task or the sweep).
// Errors: invalid (the campaign cannot start: its state, no recipients
// left, a template that is not approved, an unusable account, a media
// header without media), not_found.
func (s *Service) Start(ctx context.Context, id uuid.UUID) (*ent.Campaign, error) {
	var out *ent.Campaign
	var next string
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		switch c.Status {
		case campaign.StatusDraft, campaign.StatusPaused, campaign.StatusFailed:
		default:
			return apperr.Invalidf("a %s campaign cannot be started", c.Status)
		}
		if err := s.usable(ctx, db, c); err != nil {
			return err
		}
		pending, err := db.CampaignRecipient.Query().
			Where(campaignrecipient.CampaignID(id), campaignrecipient.StatusIn(campaignrecipient.StatusPending, campaignrecipient.StatusSending)).
			Count(ctx)
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		if pending == 0 {
			return apperr.Invalidf("the campaign has no recipients left to send to")
		}
		upd := db.Campaign.UpdateOne(c).SetErrorMessage("")
		if c.Status == campaign.StatusDraft && c.ScheduledAt != nil && c.ScheduledAt.After(s.now()) {
			upd.SetStatus(campaign.StatusScheduled)
			next = TaskStart
		} else {
			upd.SetStatus(campaign.StatusSending).ClearCompletedAt()
			if c.StartedAt == nil {
				upd.SetStartedAt(s.now())
			}
			next = TaskRun
		}
		if err := upd.Exec(ctx); err != nil {
			return apperr.Wrap(err, "campaign")
		}
		database.AfterCommit(ctx, func() { s.runs.stop(id) })
		out, err = s.statusEvent(ctx, db, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.afterCommit(ctx, next, out)
	return out, nil
}

// afterCommit queues a campaign's next task once the transaction of ctx
// commits (at once without one). A failure is left to the sweep.
func (s *Service) afterCommit(ctx context.Context, typ string, c *ent.Campaign) {
	bg := context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() {
		switch typ {
		case TaskStart:
			s.enqueueStart(bg, c.OrganizationID, c.ID, *c.ScheduledAt)
		case TaskRun:
			s.enqueueRun(bg, c.OrganizationID, c.ID)
		}
	})
}

// usable checks that the campaign can send: its template approved and of
// its account, the account active with credentials, media for a media
// header. Errors: invalid.
func (s *Service) usable(ctx context.Context, db *ent.Client, c *ent.Campaign) error {
	if c.TemplateID == nil {
		return apperr.Invalidf("the campaign has no template")
	}
	t, err := db.Template.Get(ctx, *c.TemplateID)
	if ent.IsNotFound(err) {
		return apperr.Invalidf("the campaign's template no longer exists")
	}
	if err != nil {
		return apperr.Wrap(err, "template")
	}
	if t.Status != "APPROVED" {
		return apperr.Invalidf("template %q is not approved (status %s)", t.Name, t.Status)
	}
	if t.ChatAccount != c.ChatAccount {
		return apperr.Invalidf("template %q belongs to account %q, not %q", t.Name, t.ChatAccount, c.ChatAccount)
	}
	if messaging.HeaderKind(t) != "" && c.HeaderMediaID == "" {
		return apperr.Invalidf("template %q has a %s header: upload the campaign's media first", t.Name, t.HeaderType)
	}
	a, err := db.Account.Query().Where(account.Name(c.ChatAccount)).Only(ctx)
	if ent.IsNotFound(err) {
		return apperr.Invalidf("account %q no longer exists", c.ChatAccount)
	}
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	switch {
	case a.Status != account.StatusActive:
		return apperr.Invalidf("account %q is %s and cannot send", a.Name, a.Status)
	case len(a.AccessTokenEncrypted) == 0:
		return apperr.Invalidf("account %q has no access token and cannot send", a.Name)
	}
	return nil
}

// Pause stops a sending campaign where it is; Start resumes it. Errors:
// invalid (not sending), not_found.
func (s *Service) Pause(ctx context.Context, id uuid.UUID) (*ent.Campaign, error) {
	return s.move(ctx, id, "paused", campaign.StatusPaused, campaign.StatusSending)
}

// Cancel ends an active campaign (scheduled, sending or paused) for good:
// every node's sender stops within a second. Errors: invalid (not active),
// not_found.
func (s *Service) Cancel(ctx context.Context, id uuid.UUID) (*ent.Campaign, error) {
	return s.move(ctx, id, "cancelled", campaign.StatusCancelled,
		campaign.StatusScheduled, campaign.StatusSending, campaign.StatusPaused)
}

func (s *Service) move(ctx context.Context, id uuid.UUID, verb string, to campaign.Status, from ...campaign.Status) (*ent.Campaign, error) {
	var out *ent.Campaign
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		allowed := false
		for _, f := range from {
			allowed = allowed || c.Status == f
		}
		if !allowed {
			return apperr.Invalidf("a %s campaign cannot be %s", c.Status, verb)
		}
		upd := db.Campaign.UpdateOne(c).SetStatus(to)
		if to == campaign.StatusCancelled {
			upd.SetCompletedAt(s.now())
		}
		if err := upd.Exec(ctx); err != nil {
			return apperr.Wrap(err, "campaign")
		}
		database.AfterCommit(ctx, func() { s.runs.stop(id) })
		out, err = s.statusEvent(ctx, db, id)
		return err
	})
	return out, err
}

// RetryFailed sets the failed recipients of a campaign back to pending
// (their counters with them) and sends them again; a campaign that ended
// sends again. It returns how many recipients it reset. Errors: invalid
// (a draft, scheduled or cancelled campaign, no failed recipients, an
// unusable account or template), not_found.
func (s *Service) RetryFailed(ctx context.Context, id uuid.UUID) (int, *ent.Campaign, error) {
	var out *ent.Campaign
	var n int
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		switch c.Status {
		case campaign.StatusDraft, campaign.StatusScheduled, campaign.StatusCancelled:
			return apperr.Invalidf("failed recipients of a %s campaign cannot be retried", c.Status)
		}
		failed := campaignrecipient.And(campaignrecipient.CampaignID(id), campaignrecipient.StatusEQ(campaignrecipient.StatusFailed))
		wasSent, err := db.CampaignRecipient.Query().Where(failed, campaignrecipient.SentAtNotNil()).Count(ctx)
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		n, err = db.CampaignRecipient.Update().Where(failed).
			SetStatus(campaignrecipient.StatusPending).SetErrorMessage("").
			ClearChatMessageID().ClearMessageID().ClearSentAt().ClearDeliveredAt().ClearReadAt().
			ClearSendingAt().ClearRetryAt().Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		if n == 0 {
			return apperr.Invalidf("the campaign has no failed recipients")
		}
		if err := s.usable(ctx, db, c); err != nil {
			return err
		}
		upd := db.Campaign.UpdateOne(c).AddFailedCount(-n).AddSentCount(-wasSent).
			SetStatus(campaign.StatusSending).ClearCompletedAt().SetErrorMessage("")
		if c.StartedAt == nil {
			upd.SetStartedAt(s.now())
		}
		if err := upd.Exec(ctx); err != nil {
			return apperr.Wrap(err, "campaign")
		}
		database.AfterCommit(ctx, func() { s.runs.stop(id) })
		out, err = s.statusEvent(ctx, db, id)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	s.afterCommit(ctx, TaskRun, out)
	return n, out, nil
}

// Register installs the campaign task handlers and the status hook.
func (s *Service) Register(w *worker.Worker) {
	w.HandleFunc(TaskStart, s.handleStart)
	w.HandleFunc(TaskRun, s.handleRun)
	if s.Messaging != nil {
		s.Messaging.OnStatuses(s.applyStatuses)
	}
}

func decodeTask(t *asynq.Task) (task, error) {
	var tk task
	if err := json.Unmarshal(t.Payload(), &tk); err != nil {
		return tk, fmt.Errorf("campaigns: bad task: %w: %w", err, asynq.SkipRetry)
	}
	return tk, nil
}

// enqueue queues a campaign task under taskID; it reports whether a task
// of that id existed already (it is then left as it is).
func (s *Service) enqueue(ctx context.Context, typ, taskID string, tk task, opts ...asynq.Option) (existed bool) {
	payload, _ := json.Marshal(tk)
	opts = append(opts, asynq.TaskID(taskID), asynq.Queue(worker.QueueCritical))
	_, err := s.Queue.Enqueue(ctx, asynq.NewTask(typ, payload), opts...)
	if errors.Is(err, asynq.ErrTaskIDConflict) || errors.Is(err, asynq.ErrDuplicateTask) {
		return true
	}
	if err != nil {
		s.log().Error("queueing a campaign task; the recovery sweep will retry", "type", typ, "campaign_id", tk.CampaignID, "err", err)
	}
	return false
}

// enqueueStart queues the start of a scheduled campaign at at; the task
// id names the time, so one schedule has one task.
func (s *Service) enqueueStart(ctx context.Context, org, id uuid.UUID, at time.Time) {
	s.enqueue(ctx, TaskStart, fmt.Sprintf("campaign-start:%s:%d", id, at.Unix()), task{OrgID: org, CampaignID: id},
		asynq.ProcessAt(at), asynq.MaxRetry(20))
}

// enqueueRun queues the campaign's sender: one task per campaign at a
// time (its id), one live run (its lease, runs.go), and recipients are
// claimed before their calls, so even two senders would not send a
// recipient twice.
func (s *Service) enqueueRun(ctx context.Context, org, id uuid.UUID) {
	s.enqueue(ctx, TaskRun, "campaign-run:"+id.String(), task{OrgID: org, CampaignID: id}, runOptions()...)
}

// handleStart starts a scheduled campaign whose time has come.
func (s *Service) handleStart(ctx context.Context, t *asynq.Task) error {
	tk, err := decodeTask(t)
	if err != nil {
		return err
	}
	_, err = s.startScheduled(ctx, tk.OrgID, tk.CampaignID)
	return err
}

// startScheduled moves a due scheduled campaign to sending, once: the
// conditional UPDATE lets one caller win, whichever node or sweep. It
// reports whether this call started it.
func (s *Service) startScheduled(ctx context.Context, org, id uuid.UUID) (bool, error) {
	octx := viewer.SystemContext(ctx, org)
	var started *ent.Campaign
	err := database.InTx(octx, s.Client, func(ctx context.Context, db *ent.Client) error {
		now := s.now()
		n, err := db.Campaign.Update().
			Where(campaign.ID(id), campaign.StatusEQ(campaign.StatusScheduled), campaign.ScheduledAtLTE(now.Add(time.Second))).
			SetStatus(campaign.StatusSending).SetStartedAt(now).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		started, err = s.statusEvent(ctx, db, id)
		return err
	})
	if err != nil || started == nil {
		return false, err
	}
	s.enqueueRun(octx, org, id)
	return true, nil
}

// Recover is the recovery sweep: it starts scheduled campaigns whose time
// has passed, queues the start of the others, and queues the sender of
// every sending campaign (a task that still exists keeps its one task).
// The server runs it at start and every minute.
func (s *Service) Recover(ctx context.Context) (int, error) {
	cs, err := s.Client.Campaign.Query().
		Where(campaign.StatusIn(campaign.StatusScheduled, campaign.StatusSending)).
		Select(campaign.FieldID, campaign.FieldOrganizationID, campaign.FieldStatus, campaign.FieldScheduledAt).
		All(rule.Bypass(ctx, "recovery sweep of scheduled and sending campaigns in every organization"))
	if err != nil {
		return 0, err
	}
	now := s.now()
	for _, c := range cs {
		switch {
		case c.Status == campaign.StatusSending:
			s.recoverRun(ctx, c.OrganizationID, c.ID)
		case c.ScheduledAt == nil || !c.ScheduledAt.After(now):
			if _, err := s.startScheduled(ctx, c.OrganizationID, c.ID); err != nil {
				s.log().Warn("starting a scheduled campaign", "campaign_id", c.ID, "err", err)
			}
		default:
			s.enqueueStart(ctx, c.OrganizationID, c.ID, *c.ScheduledAt)
		}
	}
	return len(cs), nil
}
