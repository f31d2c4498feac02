package templates

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/template"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/valid"
	"switchboard/provider"
	"switchboard/secrets"
)

// Page sizes of the list.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
	maxSearch       = 200
)

// StatusDraft is the status of a template not yet submitted.
const StatusDraft = "DRAFT"

// StatusPending is the status of a template under the platform's review.
const StatusPending = "PENDING"

// Service holds the template operations and what they use.
type Service struct {
	Client *ent.Client
	// Secrets opens the accounts' access tokens for platform calls.
	Secrets *secrets.Box
	// Provider calls the platform's Graph API.
	Provider *provider.Client
	// Events records template:status; nil records none.
	Events *events.Bus
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// View is a template with the names of the users who created and last
// updated it.
type View struct {
	*ent.Template
	CreatedByName string
	UpdatedByName string
}

// Filter selects templates of the list; empty fields select all.
type Filter struct {
	Account, Status, Category, Search string
	Page, Limit                       int
}

// Page is a page of templates with the total matching the filter.
type Page struct {
	Templates []*View
	Total     int
	Page      int
	Limit     int
}

// List returns the organization's templates matching f, newest first.
// Errors: invalid (page or limit below 1, a filter too long).
func (s *Service) List(ctx context.Context, f Filter) (*Page, error) {
	if f.Page < 1 || f.Limit < 1 {
		return nil, apperr.Invalidf("page and limit must be positive integers")
	}
	f.Limit = min(f.Limit, MaxPageSize)
	for field, v := range map[string]string{"account": f.Account, "status": f.Status, "category": f.Category, "search": f.Search} {
		if _, err := valid.Text(field, v, maxSearch); err != nil {
			return nil, err
		}
	}
	q := s.db(ctx).Template.Query()
	if a := strings.TrimSpace(f.Account); a != "" {
		q = q.Where(template.ChatAccount(a))
	}
	if st := strings.TrimSpace(f.Status); st != "" {
		q = q.Where(template.Status(strings.ToUpper(st)))
	}
	if c := strings.ToUpper(strings.TrimSpace(f.Category)); c != "" {
		if err := template.CategoryValidator(template.Category(c)); err != nil {
			return nil, apperr.Invalidf("category must be MARKETING, UTILITY or AUTHENTICATION")
		}
		q = q.Where(template.CategoryEQ(template.Category(c)))
	}
	if term := strings.TrimSpace(f.Search); term != "" {
		q = q.Where(template.Or(template.NameContainsFold(term), template.DisplayNameContainsFold(term)))
	}
	offset := (f.Page - 1) * f.Limit
	if offset > 1<<30 {
		return nil, apperr.Invalidf("page is too large")
	}
	// Counted up to the bound, or the requested page when deeper (docs/api.md).
	total, _, err := database.CountUpTo(ctx, q, max(database.CountBound, offset+f.Limit))
	if err != nil {
		return nil, apperr.Wrap(err, "template")
	}
	ts, err := q.Order(ent.Desc(template.FieldCreatedAt), ent.Desc(template.FieldID)).
		Offset(offset).Limit(f.Limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "template")
	}
	views, err := s.views(ctx, ts)
	if err != nil {
		return nil, err
	}
	return &Page{Templates: views, Total: total, Page: f.Page, Limit: f.Limit}, nil
}

// Get returns one template. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*View, error) {
	t, err := s.db(ctx).Template.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "template")
	}
	vs, err := s.views(ctx, []*ent.Template{t})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// views adds the creator and updater names with one user query.
func (s *Service) views(ctx context.Context, ts []*ent.Template) ([]*View, error) {
	var ids []uuid.UUID
	for _, t := range ts {
		for _, id := range []*uuid.UUID{t.CreatedByID, t.UpdatedByID} {
			if id != nil {
				ids = append(ids, *id)
			}
		}
	}
	names := map[uuid.UUID]string{}
	if len(ids) > 0 {
		us, err := s.db(ctx).User.Query().Where(user.IDIn(ids...)).Select(user.FieldID, user.FieldFullName).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "user")
		}
		for _, u := range us {
			names[u.ID] = u.FullName
		}
	}
	out := make([]*View, len(ts))
	for i, t := range ts {
		v := &View{Template: t}
		if t.CreatedByID != nil {
			v.CreatedByName = names[*t.CreatedByID]
		}
		if t.UpdatedByID != nil {
			v.UpdatedByName = names[*t.UpdatedByID]
		}
		out[i] = v
	}
	return out, nil
}

// errDuplicate answers a second template of the same account, name and
// language.
func errDuplicate(d *draft) error {
	return apperr.New(apperr.Conflict, "account %q already has a template %q in language %s", d.account, d.name, d.language)
}

func (s *Service) checkAccount(ctx context.Context, db *ent.Client, name string) error {
	ok, err := db.Account.Query().Where(account.Name(name)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if !ok {
		return apperr.Invalidf("chat_account: account %q not found", name)
	}
	return nil
}

func (s *Service) unique(ctx context.Context, db *ent.Client, d *draft, except uuid.UUID) error {
	taken, err := db.Template.Query().Where(template.ChatAccount(d.account), template.Name(d.name),
		template.Language(d.language), template.IDNEQ(except)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "template")
	}
	if taken {
		return errDuplicate(d)
	}
	return nil
}

// Create stores a draft: status DRAFT, quality UNKNOWN, no platform id.
// Errors: invalid (see the rules of validate; an unknown chat_account),
// conflict (the account has a template of that name and language).
func (s *Service) Create(ctx context.Context, in Input) (*View, error) {
	d, err := validate(in)
	if err != nil {
		return nil, err
	}
	var id uuid.UUID
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		if err := s.checkAccount(ctx, db, d.account); err != nil {
			return err
		}
		if err := s.unique(ctx, db, d, uuid.Nil); err != nil {
			return err
		}
		c := db.Template.Create().SetChatAccount(d.account).SetName(d.name).SetLanguage(d.language).
			SetStatus(StatusDraft).SetQualityRating("UNKNOWN")
		d.apply(c.Mutation())
		if v := viewer.FromContext(ctx); v != nil && v.UserID != uuid.Nil {
			c.SetCreatedByID(v.UserID).SetUpdatedByID(v.UserID)
		}
		t, err := c.Save(ctx)
		if ent.IsConstraintError(err) {
			return errDuplicate(d)
		}
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		id = t.ID
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// apply sets the draft's content fields (all but account, name and
// language) on a create or update.
func (d *draft) apply(m *ent.TemplateMutation) {
	m.SetDisplayName(d.displayName)
	m.SetCategory(d.category)
	m.SetHeaderType(d.headerType)
	m.SetHeaderContent(d.header)
	m.SetBodyContent(d.body)
	m.SetFooterContent(d.footer)
	m.SetButtons(d.buttons)
	m.SetSampleValues(d.samples)
	m.SetAddSecurityRecommendation(d.securityRecommendation)
	if d.codeExpiration != nil {
		m.SetCodeExpirationMinutes(*d.codeExpiration)
	} else {
		m.ClearCodeExpirationMinutes()
	}
}

// Update replaces a template's fields. A draft (no platform id) is
// changed locally. A submitted template keeps its account, name and
// language (the platform does not change them) and its new components
// (and category) go through the platform's edit call; it is then PENDING
// again. Errors: invalid (as Create; a changed name, language or account
// of a submitted template; the platform's refusal with its message),
// not_found, conflict, unavailable (the platform failed).
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*View, error) {
	d, err := validate(in)
	if err != nil {
		return nil, err
	}
	cur, err := s.db(ctx).Template.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "template")
	}
	if cur.ProviderTemplateID != "" {
		if d.account != cur.ChatAccount || d.name != cur.Name || d.language != cur.Language {
			return nil, apperr.Invalidf("a submitted template keeps its chat_account, name and language; create a new template instead")
		}
		if err := s.editAtPlatform(ctx, cur, d); err != nil {
			return nil, err
		}
	}
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		t, err := db.Template.Get(ctx, id)
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		if t.ProviderTemplateID != cur.ProviderTemplateID {
			return apperr.New(apperr.Conflict, "the template was submitted meanwhile; reload it and try again")
		}
		if err := s.checkAccount(ctx, db, d.account); err != nil {
			return err
		}
		if err := s.unique(ctx, db, d, id); err != nil {
			return err
		}
		u := db.Template.UpdateOneID(id).SetChatAccount(d.account).SetName(d.name).SetLanguage(d.language)
		d.apply(u.Mutation())
		if v := viewer.FromContext(ctx); v != nil && v.UserID != uuid.Nil {
			u.SetUpdatedByID(v.UserID)
		}
		if t.ProviderTemplateID != "" && t.Status != StatusPending {
			u.SetStatus(StatusPending)
		}
		saved, err := u.Save(ctx)
		if ent.IsConstraintError(err) {
			return errDuplicate(d)
		}
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		if t.Status != saved.Status {
			return s.recordStatus(ctx, saved, t.Status, "")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// Delete removes a template; a submitted one is deleted at the platform
// first (by name and platform id; one the platform no longer has is
// removed locally all the same). Errors: not_found, invalid (the
// platform's refusal), unavailable.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	t, err := s.db(ctx).Template.Get(ctx, id)
	if err != nil {
		return apperr.Wrap(err, "template")
	}
	if t.ProviderTemplateID != "" {
		if err := s.deleteAtPlatform(ctx, t); err != nil {
			return err
		}
	}
	err = s.db(ctx).Template.DeleteOneID(id).Exec(ctx)
	if ent.IsNotFound(err) {
		return nil // deleted meanwhile
	}
	return apperr.Wrap(err, "template")
}
