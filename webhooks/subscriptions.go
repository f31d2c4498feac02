package webhooks

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhooksubscription"
	"switchboard/internal/valid"
	"switchboard/netguard"
	"switchboard/outbound"
	"switchboard/secrets"
)

// Bounds of a subscription's fields.
const (
	MaxNameLength   = 255
	MaxSecretLength = 256
)

// Subscriptions is the operations on the organization's outbound webhook
// subscriptions: their CRUD (URLs checked against the SSRF policy,
// secrets encrypted at rest, the dispatcher's cache invalidated after the
// commit), a signed test event, and the list and replay of their
// deliveries.
type Subscriptions struct {
	Client *ent.Client
	// Secrets encrypts the subscriptions' signing secrets.
	Secrets *secrets.Box
	// Dispatcher sends tests and replays, checks URLs with the
	// installation's policy and caches active subscriptions; without one,
	// private destinations are refused and tests and replays are
	// unavailable.
	Dispatcher *Dispatcher
}

// CreateInput is a new subscription. A nil Secret is generated; a nil
// IsActive is true.
type CreateInput struct {
	Name     string
	URL      string
	Events   []string
	Headers  map[string]string
	Secret   *string
	IsActive *bool
}

// UpdateInput changes the non-nil fields of a subscription. Events and
// Headers replace the stored values when not nil; Secret is replaced only
// when given non-blank.
type UpdateInput struct {
	Name     *string
	URL      *string
	Events   []string
	Headers  map[string]string
	Secret   *string
	IsActive *bool
}

// Created is a new subscription with its secret in clear, shown once so
// that the receiver can verify signatures.
type Created struct {
	*ent.WebhookSubscription
	Secret string
}

// Page is one page of subscriptions with the total of the filter.
type Page struct {
	Webhooks []*ent.WebhookSubscription
	Total    int
}

// DeliveryPage is one page of a subscription's deliveries, each with its
// attempts, and the total.
type DeliveryPage struct {
	Deliveries []*ent.WebhookDelivery
	Total      int
}

// HasSecret reports whether a subscription holds a signing secret (the
// secret itself is never returned after creation).
func HasSecret(s *ent.WebhookSubscription) bool { return len(s.SecretEncrypted) > 0 }

func (s *Subscriptions) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Query returns the subscriptions of the viewer's organization whose name
// or URL contains search (case-insensitive). Errors: invalid (a NUL
// character in search).
func (s *Subscriptions) Query(ctx context.Context, search string) (*ent.WebhookSubscriptionQuery, error) {
	if err := valid.NoNUL("search", search); err != nil {
		return nil, err
	}
	q := s.db(ctx).WebhookSubscription.Query()
	if t := strings.TrimSpace(search); t != "" {
		q = q.Where(webhooksubscription.Or(webhooksubscription.NameContainsFold(t), webhooksubscription.URLContainsFold(t)))
	}
	return q, nil
}

// List returns a page of Query, newest first, with the total from a
// window count. Errors: invalid (a NUL character in search).
func (s *Subscriptions) List(ctx context.Context, search string, offset, limit int) (*Page, error) {
	q, err := s.Query(ctx, search)
	if err != nil {
		return nil, err
	}
	ws, err := q.Clone().
		Modify(database.WithTotal).
		Order(webhooksubscription.ByCreatedAt(sql.OrderDesc()), webhooksubscription.ByID()).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "webhook")
	}
	page := &Page{Webhooks: ws}
	if page.Total, err = database.PageTotal(ws, offset, func() (int, error) { return q.Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "webhook")
	}
	return page, nil
}

// Get returns a subscription. Errors: not_found.
func (s *Subscriptions) Get(ctx context.Context, id uuid.UUID) (*ent.WebhookSubscription, error) {
	w, err := s.db(ctx).WebhookSubscription.Get(ctx, id)
	return w, apperr.Wrap(err, "webhook")
}

// Create creates a subscription. The secret, given or generated, is
// stored encrypted and returned in clear this once. Errors: invalid
// (name, URL, events, headers or secret).
func (s *Subscriptions) Create(ctx context.Context, in CreateInput) (*Created, error) {
	name, err := valid.RequiredText("name", in.Name, MaxNameLength)
	if err != nil {
		return nil, err
	}
	url, err := s.checkURL(in.URL)
	if err != nil {
		return nil, err
	}
	evs, err := checkEvents(in.Events)
	if err != nil {
		return nil, err
	}
	headers, err := CheckHeaders(in.Headers)
	if err != nil {
		return nil, err
	}
	secret := outbound.NewSecret()
	if in.Secret != nil && strings.TrimSpace(*in.Secret) != "" {
		secret = strings.TrimSpace(*in.Secret)
	}
	sealed, err := s.Secrets.SealField("secret", secret, MaxSecretLength)
	if err != nil {
		return nil, err
	}
	c := s.db(ctx).WebhookSubscription.Create().
		SetName(name).SetURL(url).SetEvents(evs).SetHeaders(headers).SetSecretEncrypted(sealed)
	if in.IsActive != nil {
		c.SetIsActive(*in.IsActive)
	}
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		c.SetCreatedByID(v.UserID)
	}
	w, err := c.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "webhook")
	}
	s.invalidate(ctx, w.OrganizationID)
	return &Created{WebhookSubscription: w, Secret: secret}, nil
}

// Update changes the given fields of a subscription. Activating it clears
// the reason it was disabled for. Errors: not_found, invalid (as Create).
func (s *Subscriptions) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*ent.WebhookSubscription, error) {
	u := s.db(ctx).WebhookSubscription.UpdateOneID(id)
	if in.Name != nil {
		name, err := valid.RequiredText("name", *in.Name, MaxNameLength)
		if err != nil {
			return nil, err
		}
		u.SetName(name)
	}
	if in.URL != nil {
		url, err := s.checkURL(*in.URL)
		if err != nil {
			return nil, err
		}
		u.SetURL(url)
	}
	if in.Events != nil {
		evs, err := checkEvents(in.Events)
		if err != nil {
			return nil, err
		}
		u.SetEvents(evs)
	}
	if in.Headers != nil {
		headers, err := CheckHeaders(in.Headers)
		if err != nil {
			return nil, err
		}
		u.SetHeaders(headers)
	}
	if in.Secret != nil && strings.TrimSpace(*in.Secret) != "" {
		sealed, err := s.Secrets.SealField("secret", strings.TrimSpace(*in.Secret), MaxSecretLength)
		if err != nil {
			return nil, err
		}
		u.SetSecretEncrypted(sealed)
	}
	if in.IsActive != nil {
		u.SetIsActive(*in.IsActive)
		if *in.IsActive {
			u.SetDisabledReason("")
		}
	}
	w, err := u.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "webhook")
	}
	s.invalidate(ctx, w.OrganizationID)
	return w, nil
}

// Delete deletes a subscription with its deliveries. Errors: not_found.
func (s *Subscriptions) Delete(ctx context.Context, id uuid.UUID) error {
	if err := s.db(ctx).WebhookSubscription.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "webhook")
	}
	s.invalidate(ctx, viewer.FromContext(ctx).OrgID)
	return nil
}

// Test sends a signed test event to the subscription now and returns a
// message saying how the receiver answered. Errors: not_found, invalid
// (the receiver did not answer 2xx, or could not be reached), unavailable
// (no dispatcher).
func (s *Subscriptions) Test(ctx context.Context, id uuid.UUID) (string, error) {
	w, err := s.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if s.Dispatcher == nil {
		return "", errNoDispatcher
	}
	o, err := s.Dispatcher.SendTest(ctx, w)
	if err != nil {
		return "", apperr.Wrap(err, "webhook")
	}
	switch {
	case o.Succeeded():
		return "Test event delivered: the receiver answered HTTP " + strconv.Itoa(o.StatusCode), nil
	case o.StatusCode > 0:
		return "", apperr.Invalidf("test event failed: the receiver answered %s", o.Error)
	default:
		return "", apperr.Invalidf("test event failed: %s", o.Error)
	}
}

var errNoDispatcher = apperr.New(apperr.Unavailable, "webhook delivery is not configured")

// DeliveriesQuery returns the deliveries of a subscription. Errors:
// not_found (the subscription).
func (s *Subscriptions) DeliveriesQuery(ctx context.Context, id uuid.UUID) (*ent.WebhookDeliveryQuery, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	return s.db(ctx).WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(id)), nil
}

// Deliveries is the connection of a subscription's deliveries, newest
// first, with the attempts the request selects in attempt order. Errors:
// not_found (the subscription).
func (s *Subscriptions) Deliveries(ctx context.Context, id uuid.UUID, after *entgql.Cursor[uuid.UUID], first *int,
	before *entgql.Cursor[uuid.UUID], last *int) (*ent.WebhookDeliveryConnection, error) {
	q, err := s.DeliveriesQuery(ctx, id)
	if err != nil {
		return nil, err
	}
	// Attempts come in attempt order (the entity's interceptor).
	return q.Paginate(ctx, after, first, before, last, ent.WithWebhookDeliveryOrder(&ent.WebhookDeliveryOrder{
		Direction: entgql.OrderDirectionDesc, Field: ent.WebhookDeliveryOrderFieldCreatedAt,
	}))
}

// ListDeliveries returns a page of a subscription's deliveries, newest
// first, each with its attempts in order. Errors: not_found.
func (s *Subscriptions) ListDeliveries(ctx context.Context, id uuid.UUID, offset, limit int) (*DeliveryPage, error) {
	q, err := s.DeliveriesQuery(ctx, id)
	if err != nil {
		return nil, err
	}
	ds, total, err := database.OffsetPage(ctx, q.WithDeliveryAttempts().
		Order(webhookdelivery.ByCreatedAt(sql.OrderDesc()), webhookdelivery.ByID()), offset, limit)
	if err != nil {
		return nil, apperr.Wrap(err, "delivery")
	}
	return &DeliveryPage{Deliveries: ds, Total: total}, nil
}

// ReplayDelivery queues a finished delivery of the subscription again
// (see Dispatcher.Replay) and returns it. Errors: not_found (the
// subscription, or a delivery not of it), invalid (the delivery is still
// waiting, or the subscription is inactive), unavailable (no dispatcher).
func (s *Subscriptions) ReplayDelivery(ctx context.Context, id, deliveryID uuid.UUID) (*ent.WebhookDelivery, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	exists, err := s.db(ctx).WebhookDelivery.Query().
		Where(webhookdelivery.ID(deliveryID), webhookdelivery.SubscriptionID(id)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "delivery")
	}
	if !exists {
		return nil, apperr.NotFoundf("delivery not found")
	}
	if s.Dispatcher == nil {
		return nil, errNoDispatcher
	}
	return s.Dispatcher.Replay(ctx, deliveryID)
}

// invalidate drops the dispatcher's cached subscriptions of the
// organization once the change is committed.
func (s *Subscriptions) invalidate(ctx context.Context, orgID uuid.UUID) {
	if s.Dispatcher == nil {
		return
	}
	database.AfterCommit(ctx, func() { s.Dispatcher.Invalidate(orgID) })
}

// checkURL checks a subscription URL against the SSRF policy; without a
// dispatcher private destinations are refused.
func (s *Subscriptions) checkURL(raw string) (string, error) {
	url := strings.TrimSpace(raw)
	if url == "" {
		return "", apperr.Invalidf("url is required")
	}
	var err error
	if s.Dispatcher != nil {
		err = s.Dispatcher.ValidateURL(url)
	} else {
		err = netguard.ValidateURL(url, false)
	}
	if err != nil {
		return "", apperr.Invalidf("url: %s", err.Error())
	}
	return url, nil
}

// checkEvents checks that evs is a non-empty list of subscribable events
// and drops repeats.
func checkEvents(evs []string) ([]string, error) {
	if len(evs) == 0 {
		return nil, apperr.Invalidf("events must list at least one event")
	}
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		e = strings.TrimSpace(e)
		if !IsEvent(e) {
			return nil, apperr.Invalidf("events: unknown event %q", e)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}
