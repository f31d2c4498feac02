package graph

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/ent/webhookdelivery"
	"switchboard/ent/webhooksubscription"
	"switchboard/netguard"
	"switchboard/outbound"
	"switchboard/webhooks"
)

// Bounds of a webhook subscription's fields.
const (
	maxWebhookName   = 255
	maxWebhookSecret = 256
)

// CreateWebhookInput is a new outbound webhook subscription. A nil Secret
// is generated; a nil IsActive is true.
type CreateWebhookInput struct {
	Name     string
	URL      string
	Events   []string
	Headers  map[string]string
	Secret   *string
	IsActive *bool
}

// UpdateWebhookInput changes the non-nil fields of a subscription. Events
// and Headers replace the stored values when not nil; Secret is replaced
// only when given non-blank.
type UpdateWebhookInput struct {
	Name     *string
	URL      *string
	Events   []string
	Headers  map[string]string
	Secret   *string
	IsActive *bool
}

// CreatedWebhook is a new subscription with its secret in clear, shown
// once so that the receiver can verify signatures.
type CreatedWebhook struct {
	*ent.WebhookSubscription
	Secret string
}

// WebhookPage is one page of subscriptions with the total of the filter.
type WebhookPage struct {
	Webhooks []*ent.WebhookSubscription
	Total    int
}

// WebhookDeliveryPage is one page of a subscription's deliveries, each
// with its attempts, and the total.
type WebhookDeliveryPage struct {
	Deliveries []*ent.WebhookDelivery
	Total      int
}

// WebhookHasSecret reports whether a subscription holds a signing secret
// (the secret itself is never returned after creation).
func WebhookHasSecret(s *ent.WebhookSubscription) bool { return len(s.SecretEncrypted) > 0 }

// WebhookEvents lists the events a subscription may subscribe to.
func (r *Resolver) WebhookEvents() []webhooks.Event { return webhooks.Events() }

// WebhooksQuery returns the subscriptions of the viewer's organization
// whose name or URL contains search (case-insensitive). Errors: invalid (a
// NUL character in search).
func (r *Resolver) WebhooksQuery(ctx context.Context, search string) (*ent.WebhookSubscriptionQuery, error) {
	if err := filterText("search", search); err != nil {
		return nil, err
	}
	q := r.db(ctx).WebhookSubscription.Query()
	if s := strings.TrimSpace(search); s != "" {
		q = q.Where(webhooksubscription.Or(webhooksubscription.NameContainsFold(s), webhooksubscription.URLContainsFold(s)))
	}
	return q, nil
}

// ListWebhooks returns a page of WebhooksQuery, newest first, with the
// total from a window count. Errors: invalid (a NUL character in search).
func (r *Resolver) ListWebhooks(ctx context.Context, search string, offset, limit int) (*WebhookPage, error) {
	q, err := r.WebhooksQuery(ctx, search)
	if err != nil {
		return nil, err
	}
	ws, err := q.Clone().
		Modify(withTotal).
		Order(webhooksubscription.ByCreatedAt(sql.OrderDesc()), webhooksubscription.ByID()).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "webhook")
	}
	page := &WebhookPage{Webhooks: ws}
	if page.Total, err = pageTotal(ws, offset, func() (int, error) { return q.Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "webhook")
	}
	return page, nil
}

// GetWebhook returns a subscription. Errors: not_found.
func (r *Resolver) GetWebhook(ctx context.Context, id uuid.UUID) (*ent.WebhookSubscription, error) {
	w, err := r.db(ctx).WebhookSubscription.Get(ctx, id)
	return w, apperr.Wrap(err, "webhook")
}

// CreateWebhook creates a subscription. The secret, given or generated,
// is stored encrypted and returned in clear this once. Errors: invalid
// (name, URL, events, headers or secret).
func (r *Resolver) CreateWebhook(ctx context.Context, in CreateWebhookInput) (*CreatedWebhook, error) {
	name, err := webhookName(in.Name)
	if err != nil {
		return nil, err
	}
	url, err := r.webhookURL(in.URL)
	if err != nil {
		return nil, err
	}
	evs, err := webhookEvents(in.Events)
	if err != nil {
		return nil, err
	}
	headers, err := webhooks.CheckHeaders(in.Headers)
	if err != nil {
		return nil, err
	}
	secret := outbound.NewSecret()
	if in.Secret != nil && strings.TrimSpace(*in.Secret) != "" {
		secret = strings.TrimSpace(*in.Secret)
	}
	sealed, err := r.Secrets.SealField("secret", secret, maxWebhookSecret)
	if err != nil {
		return nil, err
	}
	c := r.db(ctx).WebhookSubscription.Create().
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
	r.invalidateWebhooks(ctx, w.OrganizationID)
	return &CreatedWebhook{WebhookSubscription: w, Secret: secret}, nil
}

// UpdateWebhook changes the given fields of a subscription. Activating it
// clears the reason it was disabled for. Errors: not_found, invalid (as
// CreateWebhook).
func (r *Resolver) UpdateWebhook(ctx context.Context, id uuid.UUID, in UpdateWebhookInput) (*ent.WebhookSubscription, error) {
	u := r.db(ctx).WebhookSubscription.UpdateOneID(id)
	if in.Name != nil {
		name, err := webhookName(*in.Name)
		if err != nil {
			return nil, err
		}
		u.SetName(name)
	}
	if in.URL != nil {
		url, err := r.webhookURL(*in.URL)
		if err != nil {
			return nil, err
		}
		u.SetURL(url)
	}
	if in.Events != nil {
		evs, err := webhookEvents(in.Events)
		if err != nil {
			return nil, err
		}
		u.SetEvents(evs)
	}
	if in.Headers != nil {
		headers, err := webhooks.CheckHeaders(in.Headers)
		if err != nil {
			return nil, err
		}
		u.SetHeaders(headers)
	}
	if in.Secret != nil && strings.TrimSpace(*in.Secret) != "" {
		sealed, err := r.Secrets.SealField("secret", strings.TrimSpace(*in.Secret), maxWebhookSecret)
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
	r.invalidateWebhooks(ctx, w.OrganizationID)
	return w, nil
}

// DeleteWebhook deletes a subscription with its deliveries. Errors:
// not_found.
func (r *Resolver) DeleteWebhook(ctx context.Context, id uuid.UUID) error {
	if err := r.db(ctx).WebhookSubscription.DeleteOneID(id).Exec(ctx); err != nil {
		return apperr.Wrap(err, "webhook")
	}
	r.invalidateWebhooks(ctx, viewer.FromContext(ctx).OrgID)
	return nil
}

// TestWebhook sends a signed test event to the subscription now and
// returns a message saying how the receiver answered. Errors: not_found,
// invalid (the receiver did not answer 2xx, or could not be reached),
// unavailable (no dispatcher).
func (r *Resolver) TestWebhook(ctx context.Context, id uuid.UUID) (string, error) {
	w, err := r.GetWebhook(ctx, id)
	if err != nil {
		return "", err
	}
	if r.Webhooks == nil {
		return "", apperr.New(apperr.Unavailable, "webhook delivery is not configured")
	}
	o, err := r.Webhooks.SendTest(ctx, w)
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

// WebhookDeliveriesQuery returns the deliveries of a subscription.
// Errors: not_found (the subscription).
func (r *Resolver) WebhookDeliveriesQuery(ctx context.Context, id uuid.UUID) (*ent.WebhookDeliveryQuery, error) {
	if _, err := r.GetWebhook(ctx, id); err != nil {
		return nil, err
	}
	return r.db(ctx).WebhookDelivery.Query().Where(webhookdelivery.SubscriptionID(id)), nil
}

// WebhookDeliveries is the connection of a subscription's deliveries,
// newest first, with the attempts the request selects in attempt order.
// Errors: not_found (the subscription).
func (r *Resolver) WebhookDeliveries(ctx context.Context, id uuid.UUID, after *entgql.Cursor[uuid.UUID], first *int,
	before *entgql.Cursor[uuid.UUID], last *int) (*ent.WebhookDeliveryConnection, error) {
	q, err := r.WebhookDeliveriesQuery(ctx, id)
	if err != nil {
		return nil, err
	}
	// Attempts come in attempt order (the entity's interceptor).
	return q.Paginate(ctx, after, first, before, last, ent.WithWebhookDeliveryOrder(&ent.WebhookDeliveryOrder{
		Direction: entgql.OrderDirectionDesc, Field: ent.WebhookDeliveryOrderFieldCreatedAt,
	}))
}

// ListWebhookDeliveries returns a page of a subscription's deliveries,
// newest first, each with its attempts in order. Errors: not_found.
func (r *Resolver) ListWebhookDeliveries(ctx context.Context, id uuid.UUID, offset, limit int) (*WebhookDeliveryPage, error) {
	q, err := r.WebhookDeliveriesQuery(ctx, id)
	if err != nil {
		return nil, err
	}
	ds, total, err := offsetPage(ctx, q.WithDeliveryAttempts().
		Order(webhookdelivery.ByCreatedAt(sql.OrderDesc()), webhookdelivery.ByID()), offset, limit, "delivery")
	if err != nil {
		return nil, err
	}
	return &WebhookDeliveryPage{Deliveries: ds, Total: total}, nil
}

// ReplayWebhookDelivery queues a finished delivery of the subscription
// again (see webhooks.Dispatcher.Replay) and returns it. Errors:
// not_found (the subscription, or a delivery not of it), invalid (the
// delivery is still waiting, or the subscription is inactive),
// unavailable (no dispatcher).
func (r *Resolver) ReplayWebhookDelivery(ctx context.Context, id, deliveryID uuid.UUID) (*ent.WebhookDelivery, error) {
	if _, err := r.GetWebhook(ctx, id); err != nil {
		return nil, err
	}
	exists, err := r.db(ctx).WebhookDelivery.Query().
		Where(webhookdelivery.ID(deliveryID), webhookdelivery.SubscriptionID(id)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "delivery")
	}
	if !exists {
		return nil, apperr.NotFoundf("delivery not found")
	}
	if r.Webhooks == nil {
		return nil, apperr.New(apperr.Unavailable, "webhook delivery is not configured")
	}
	return r.Webhooks.Replay(ctx, deliveryID)
}

// invalidateWebhooks drops the dispatcher's cached subscriptions of the
// organization once the change is committed.
func (r *Resolver) invalidateWebhooks(ctx context.Context, orgID uuid.UUID) {
	if r.Webhooks == nil {
		return
	}
	database.AfterCommit(ctx, func() { r.Webhooks.Invalidate(orgID) })
}

// webhookURL checks a subscription URL against the SSRF policy; without a
// dispatcher private destinations are refused.
func (r *Resolver) webhookURL(raw string) (string, error) {
	url := strings.TrimSpace(raw)
	if url == "" {
		return "", apperr.Invalidf("url is required")
	}
	var err error
	if r.Webhooks != nil {
		err = r.Webhooks.ValidateURL(url)
	} else {
		err = netguard.ValidateURL(url, false)
	}
	if err != nil {
		return "", apperr.Invalidf("url: %s", err.Error())
	}
	return url, nil
}

func webhookName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	switch {
	case name == "":
		return "", apperr.Invalidf("name is required")
	case utf8.RuneCountInString(name) > maxWebhookName:
		return "", apperr.Invalidf("name must be at most %d characters", maxWebhookName)
	case strings.ContainsRune(name, 0):
		return "", apperr.Invalidf("name must not contain NUL characters")
	}
	return name, nil
}

// webhookEvents checks that events is a non-empty list of subscribable
// events and drops repeats.
func webhookEvents(evs []string) ([]string, error) {
	if len(evs) == 0 {
		return nil, apperr.Invalidf("events must list at least one event")
	}
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		e = strings.TrimSpace(e)
		if !webhooks.IsEvent(e) {
			return nil, apperr.Invalidf("events: unknown event %q", e)
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}
