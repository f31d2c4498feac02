// Package customactions owns custom actions: buttons next to a conversation
// that call a webhook, open a URL or hand JavaScript to the client. It
// validates their configuration, renders their templates with the
// contact's, user's and organization's values, makes webhook calls through
// the outbound guard (netguard) and issues the single-use redirect tokens of
// URL actions (kept in Redis).
//
// JavaScript is never run on the server: execute only returns the code and
// its context to the client. The package must not know about HTTP
// transports (rest/, graph/).
package customactions

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/customaction"
	"switchboard/ent/predicate"
	"switchboard/internal/valid"
)

// Bounds of actions and lists.
const (
	MaxNameLength    = 100
	MaxSearchLength  = 200
	MaxDisplayOrder  = 1_000_000
	DefaultPageSize  = 50
	MaxPageSize      = 100
	MaxPage          = 1_000_000
	WebhookTimeout   = 15 * time.Second
	MaxResponseBytes = 1 << 20
)

// Service is the custom actions' operations.
type Service struct {
	Client *ent.Client
	// Redis keeps the redirect tokens of URL actions.
	Redis *redis.Client
	// Prefix namespaces the Redis keys.
	Prefix string
	// HTTP makes webhook calls; it must be a netguard client.
	HTTP *http.Client
	// AllowPrivate lets webhook URLs name private addresses when they are
	// saved (the HTTP client enforces the same policy when it connects).
	AllowPrivate bool
	// RedirectTTL is how long a redirect token is valid; zero means
	// RedirectTokenTTL.
	RedirectTTL time.Duration
}

// Input is an action's fields; on update, nil fields keep their value.
type Input struct {
	Name         *string
	Icon         *string
	ActionType   *string
	Config       map[string]any
	IsActive     *bool
	DisplayOrder *int
}

// Page is a page of actions and the count of all that match.
type Page struct {
	CustomActions []*ent.CustomAction
	Total         int
}

// List returns the organization's actions whose name contains search
// (case-insensitively), ordered by display_order then name. Errors:
// invalid (bounds).
func (s *Service) List(ctx context.Context, search string, offset, limit int) (*Page, error) {
	if limit < 1 || offset < 0 {
		return nil, apperr.Invalidf("page and limit must be positive integers")
	}
	limit = min(limit, MaxPageSize)
	search, err := valid.Text("search", search, MaxSearchLength)
	if err != nil {
		return nil, err
	}
	var where []predicate.CustomAction
	if search != "" {
		where = append(where, customaction.NameContainsFold(search))
	}
	db := database.ClientFor(ctx, s.Client)
	q := db.CustomAction.Query().Where(where...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "custom action")
	}
	as, err := q.Order(customaction.ByDisplayOrder(), customaction.ByName(), customaction.ByID()).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "custom action")
	}
	return &Page{CustomActions: as, Total: total}, nil
}

// Get returns an action. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.CustomAction, error) {
	a, err := database.ClientFor(ctx, s.Client).CustomAction.Get(ctx, id)
	return a, apperr.Wrap(err, "custom action")
}

// Create adds an action: name, action_type and config are required, icon
// defaults to zap, is_active to true, display_order to 0. Errors: invalid
// (a missing or too long name, an icon or action_type outside the spec's
// lists, a config that does not fit the type).
func (s *Service) Create(ctx context.Context, in Input) (*ent.CustomAction, error) {
	if in.Name == nil {
		return nil, apperr.Invalidf("name is required")
	}
	if in.ActionType == nil {
		return nil, apperr.Invalidf("action_type is required")
	}
	if in.Config == nil {
		return nil, apperr.Invalidf("config is required")
	}
	f, err := s.check(in, "")
	if err != nil {
		return nil, err
	}
	c := database.ClientFor(ctx, s.Client).CustomAction.Create().
		SetName(f.name).SetActionType(f.typ).SetConfig(f.config).
		SetNillableIsActive(in.IsActive).SetNillableDisplayOrder(in.DisplayOrder)
	if f.icon != "" {
		c.SetIcon(customaction.Icon(f.icon))
	}
	a, err := c.Save(ctx)
	return a, apperr.Wrap(err, "custom action")
}

// Update changes the given fields of an action. A new action_type needs a
// config that fits it (the stored one is checked against it when none is
// given). A given config replaces the stored one whole, headers
// included: an editor (settings:update, who reads the header values)
// sends them back to keep them; without config the stored one, headers
// and all, stays. Errors: not_found, invalid (as Create).
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*ent.CustomAction, error) {
	db := database.ClientFor(ctx, s.Client)
	cur, err := db.CustomAction.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "custom action")
	}
	if in.ActionType != nil && in.Config == nil && *in.ActionType != string(cur.ActionType) {
		in.Config = cur.Config
	}
	f, err := s.check(in, cur.ActionType)
	if err != nil {
		return nil, err
	}
	u := db.CustomAction.UpdateOne(cur).
		SetNillableIsActive(in.IsActive).SetNillableDisplayOrder(in.DisplayOrder)
	if in.Name != nil {
		u.SetName(f.name)
	}
	if f.icon != "" {
		u.SetIcon(customaction.Icon(f.icon))
	}
	if in.ActionType != nil {
		u.SetActionType(f.typ)
	}
	if f.config != nil {
		u.SetConfig(f.config)
	}
	a, err := u.Save(ctx)
	return a, apperr.Wrap(err, "custom action")
}

// Delete removes an action. Errors: not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	err := database.ClientFor(ctx, s.Client).CustomAction.DeleteOneID(id).Exec(ctx)
	return apperr.Wrap(err, "custom action")
}

// checked are an input's validated fields.
type checked struct {
	name   string
	icon   string
	typ    customaction.ActionType
	config map[string]any
}

// check validates the given fields of in; cur is the stored type on
// update (empty on create).
func (s *Service) check(in Input, cur customaction.ActionType) (checked, error) {
	var f checked
	if in.Name != nil {
		var err error
		if f.name, err = valid.RequiredText("name", *in.Name, MaxNameLength); err != nil {
			return f, err
		}
	}
	if in.Icon != nil && *in.Icon != "" {
		if customaction.IconValidator(customaction.Icon(*in.Icon)) != nil {
			return f, apperr.Invalidf("icon must be one of ticket, user, bar-chart, link, phone, mail, file-text, external-link, zap, globe, code")
		}
		f.icon = *in.Icon
	}
	f.typ = cur
	if in.ActionType != nil {
		f.typ = customaction.ActionType(*in.ActionType)
		if customaction.ActionTypeValidator(f.typ) != nil {
			return f, apperr.Invalidf("action_type must be one of webhook, url, javascript")
		}
	}
	if in.DisplayOrder != nil && (*in.DisplayOrder < -MaxDisplayOrder || *in.DisplayOrder > MaxDisplayOrder) {
		return f, apperr.Invalidf("display_order must be between %d and %d", -MaxDisplayOrder, MaxDisplayOrder)
	}
	if in.Config != nil {
		c, err := CheckConfig(f.typ, in.Config, s.AllowPrivate)
		if err != nil {
			return f, err
		}
		f.config = c
	}
	return f, nil
}
