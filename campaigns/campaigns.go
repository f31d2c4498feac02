// Package campaigns owns bulk campaigns: drafts and their recipients
// (imported in bulk), the campaign state machine (draft, scheduled,
// sending, paused, completed, cancelled, failed), the paced sender that
// sends one template to every recipient exactly once across crashes and
// nodes, and the delivery counters that the platform's status webhooks
// advance. Every recipient is a row with a status: the sender claims it
// (sending) before calling the platform and records the platform's id
// after; the status webhook echoes the campaign and recipient ids
// (biz_opaque_callback_data), so a crash between the two is reconciled
// without a second send. Messages are stored through messaging (which
// must not import this package: campaigns registers a status hook there).
package campaigns

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/campaign"
	"switchboard/events"
	"switchboard/internal/valid"
	"switchboard/media"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/ratelimit"
	"switchboard/secrets"
	"switchboard/worker"
)

// Bounds of campaigns and of their lists.
const (
	MaxNameLength   = 255
	maxMediaID      = 512
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// Service holds the campaign operations and the sender.
type Service struct {
	Client    *ent.Client
	Queue     *worker.Client
	Provider  *provider.Client
	Secrets   *secrets.Box
	Media     *media.Store
	Messaging *messaging.Service
	Events    *events.Bus
	// Limiter paces sends per phone number (shared by every node).
	Limiter Limiter
	Log     *slog.Logger
	// Now is the clock (tests fake it).
	Now func() time.Time
	// Postgres imports recipients with array statements.
	Postgres bool
	// SendingTimeout bounds how long a recipient left sending by a crash
	// waits for the platform's status webhook before it is marked failed
	// (default DefaultSendingTimeout).
	SendingTimeout time.Duration
	// Workers is the number of concurrent platform calls of one run
	// (default: the calls of half a second at the account's rate, 8 to
	// 500); the limiter sets the pace.
	Workers int
	// PairRetry delays a recipient the platform refused for its pair
	// rate, 131056 (default 10 s).
	PairRetry time.Duration

	// Tiers reads an account's messaging limit tier from the platform and
	// stores it (accounts.Service); each run paces at the tier read when
	// it starts. Nil: the stored tier.
	Tiers TierSource
	// RunLeases holds each campaign's run lease (runs.go); nil lets every
	// run go ahead (tests of the sender alone).
	RunLeases *ratelimit.Leases

	marks progressMarks
	runs  localRuns
	// tuneMu guards Limiter, PairRetry and SendingTimeout against Tune.
	tuneMu sync.RWMutex
}

// TierSource refreshes an account's messaging limit tier from the
// platform (accounts.Service.Test).
type TierSource interface {
	Test(ctx context.Context, id uuid.UUID) (*provider.PhoneNumber, error)
}

// Tune replaces the limiter (when l is not nil) and the pair-rate and
// sending bounds (when positive) of a running service (tests).
func (s *Service) Tune(l Limiter, pairRetry, sendingTimeout time.Duration) {
	s.tuneMu.Lock()
	defer s.tuneMu.Unlock()
	if l != nil {
		s.Limiter = l
	}
	if pairRetry > 0 {
		s.PairRetry = pairRetry
	}
	if sendingTimeout > 0 {
		s.SendingTimeout = sendingTimeout
	}
}

func (s *Service) limiter() Limiter {
	s.tuneMu.RLock()
	defer s.tuneMu.RUnlock()
	return s.Limiter
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Input is a campaign's create or update body: nil fields are not given.
// ClearSchedule removes scheduled_at (an update with scheduled_at null).
type Input struct {
	Name          *string
	ChatAccount   *string
	TemplateID    *uuid.UUID
	HeaderMediaID *string
	ScheduledAt   *time.Time
	ClearSchedule bool
}

// Filter selects campaigns: Status, ChatAccount (exact), Search (name,
// case-insensitive), From and To (created on or after / before).
type Filter struct {
	Status      string
	ChatAccount string
	Search      string
	From, To    *time.Time
}

// Get returns the campaign with its template. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.Campaign, error) {
	c, err := s.db(ctx).Campaign.Query().Where(campaign.ID(id)).WithTemplate().Only(ctx)
	return c, apperr.Wrap(err, "campaign")
}

// Query is the filtered campaign query, newest first. Errors: invalid.
func (s *Service) Query(ctx context.Context, f Filter) (*ent.CampaignQuery, error) {
	q := s.db(ctx).Campaign.Query()
	if st := strings.TrimSpace(f.Status); st != "" {
		if err := campaign.StatusValidator(campaign.Status(st)); err != nil {
			return nil, apperr.Invalidf("status must be one of draft, scheduled, sending, paused, completed, cancelled, failed")
		}
		q = q.Where(campaign.StatusEQ(campaign.Status(st)))
	}
	for field, v := range map[string]string{"chat_account": f.ChatAccount, "search": f.Search} {
		if err := valid.Check(field, v, MaxNameLength); err != nil {
			return nil, err
		}
	}
	if a := strings.TrimSpace(f.ChatAccount); a != "" {
		q = q.Where(campaign.ChatAccount(a))
	}
	if sr := strings.TrimSpace(f.Search); sr != "" {
		q = q.Where(campaign.NameContainsFold(sr))
	}
	if f.From != nil {
		q = q.Where(campaign.CreatedAtGTE(*f.From))
	}
	if f.To != nil {
		q = q.Where(campaign.CreatedAtLTE(*f.To))
	}
	return q.Order(ent.Desc(campaign.FieldCreatedAt), ent.Desc(campaign.FieldID)), nil
}

// List returns one page of the filtered campaigns with their templates and
// the filter's total. Errors: invalid.
func (s *Service) List(ctx context.Context, f Filter, offset, limit int) ([]*ent.Campaign, int, error) {
	q, err := s.Query(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, 0, apperr.Wrap(err, "campaign")
	}
	cs, err := q.WithTemplate().Offset(offset).Limit(min(limit, MaxPageSize)).All(ctx)
	return cs, total, apperr.Wrap(err, "campaign")
}

// Create stores a draft campaign. Errors: invalid (name, account,
// template of another account, scheduled_at in the past), not_found
// (template).
func (s *Service) Create(ctx context.Context, in Input) (*ent.Campaign, error) {
	switch {
	case in.Name == nil:
		return nil, apperr.Invalidf("name is required")
	case in.ChatAccount == nil:
		return nil, apperr.Invalidf("chat_account is required")
	case in.TemplateID == nil:
		return nil, apperr.Invalidf("template_id is required")
	}
	var out *ent.Campaign
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		create := db.Campaign.Create()
		if err := s.apply(ctx, db, nil, in, create.Mutation()); err != nil {
			return err
		}
		c, err := create.Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "campaign")
		}
		out, err = s.reload(ctx, db, c.ID)
		return err
	})
	return out, err
}

// Update changes the given fields of a draft campaign. Errors: invalid (as
// Create, or the campaign is not a draft), not_found.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*ent.Campaign, error) {
	var out *ent.Campaign
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		if c.Status != campaign.StatusDraft {
			return apperr.Invalidf("only draft campaigns can be edited (this one is %s)", c.Status)
		}
		upd := db.Campaign.UpdateOne(c)
		if err := s.apply(ctx, db, c, in, upd.Mutation()); err != nil {
			return err
		}
		if in.ClearSchedule {
			upd.ClearScheduledAt()
		}
		if err := upd.Exec(ctx); err != nil {
			return apperr.Wrap(err, "campaign")
		}
		out, err = s.reload(ctx, db, id)
		return err
	})
	return out, err
}

// apply validates in and sets it on m; cur is the campaign being updated
// (nil on create).
func (s *Service) apply(ctx context.Context, db *ent.Client, cur *ent.Campaign, in Input, m *ent.CampaignMutation) error {
	if in.Name != nil {
		name, err := valid.RequiredText("name", *in.Name, MaxNameLength)
		if err != nil {
			return err
		}
		m.SetName(name)
	}
	accountName := ""
	if cur != nil {
		accountName = cur.ChatAccount
	}
	if in.ChatAccount != nil {
		var err error
		if accountName, err = valid.RequiredText("chat_account", *in.ChatAccount, MaxNameLength); err != nil {
			return err
		}
		exists, err := db.Account.Query().Where(account.Name(accountName)).Exist(ctx)
		if err != nil {
			return apperr.Wrap(err, "account")
		}
		if !exists {
			return apperr.Invalidf("account %q not found", accountName)
		}
		m.SetChatAccount(accountName)
	}
	if in.TemplateID != nil || in.ChatAccount != nil {
		var tid uuid.UUID
		switch {
		case in.TemplateID != nil:
			tid = *in.TemplateID
		case cur != nil && cur.TemplateID != nil:
			tid = *cur.TemplateID
		}
		if tid != uuid.Nil {
			t, err := db.Template.Get(ctx, tid)
			if err != nil {
				return apperr.Wrap(err, "template")
			}
			if t.ChatAccount != accountName {
				return apperr.Invalidf("template %q belongs to account %q, not %q", t.Name, t.ChatAccount, accountName)
			}
			m.SetTemplateID(tid)
		}
	}
	if in.HeaderMediaID != nil {
		id, err := valid.Text("header_media_id", *in.HeaderMediaID, maxMediaID)
		if err != nil {
			return err
		}
		m.SetHeaderMediaID(id)
	}
	if in.ScheduledAt != nil {
		if !in.ScheduledAt.After(s.now()) {
			return apperr.Invalidf("scheduled_at must be in the future")
		}
		m.SetScheduledAt(in.ScheduledAt.UTC())
	}
	return nil
}

// Delete removes a campaign and its recipients. A sending campaign is
// paused or cancelled first. Errors: invalid (sending), not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		if c.Status == campaign.StatusSending {
			return apperr.Invalidf("the campaign is sending: pause or cancel it before deleting it")
		}
		return apperr.Wrap(db.Campaign.DeleteOne(c).Exec(ctx), "campaign")
	})
}

// lockCampaign reads the campaign for update (its row locked until the
// transaction ends on PostgreSQL; SQLite has one writer at a time).
// Errors: not_found.
func (s *Service) lockCampaign(ctx context.Context, db *ent.Client, id uuid.UUID) (*ent.Campaign, error) {
	q := db.Campaign.Query().Where(campaign.ID(id))
	if s.Postgres {
		q = q.ForUpdate()
	}
	c, err := q.Only(ctx)
	return c, apperr.Wrap(err, "campaign")
}

// lockRecipients locks the recipients q reads until the transaction
// ends (PostgreSQL; SQLite has one writer at a time and no FOR UPDATE).
func (s *Service) lockRecipients(q *ent.CampaignRecipientQuery) *ent.CampaignRecipientQuery {
	if s.Postgres {
		return q.ForUpdate()
	}
	return q
}

func (s *Service) reload(ctx context.Context, db *ent.Client, id uuid.UUID) (*ent.Campaign, error) {
	c, err := db.Campaign.Query().Where(campaign.ID(id)).WithTemplate().Only(ctx)
	return c, apperr.Wrap(err, "campaign")
}

// TemplateName is the name of the campaign's template ("" when it is gone
// or not loaded).
func TemplateName(c *ent.Campaign) string {
	if t := c.Edges.Template; t != nil {
		return t.Name
	}
	return ""
}

// TemplateNameOf is the name of the campaign's template, read when the
// campaign was loaded without it ("" when it has none or it is gone).
func (s *Service) TemplateNameOf(ctx context.Context, c *ent.Campaign) (string, error) {
	if c.Edges.Template != nil || c.TemplateID == nil {
		return TemplateName(c), nil
	}
	t, err := s.db(ctx).Template.Get(ctx, *c.TemplateID)
	if ent.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", apperr.Wrap(err, "template")
	}
	return t.Name, nil
}
