package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/swaggest/jsonschema-go"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/webhooks"
)

// The outbound webhook subscriptions (/api/webhooks). The platform's
// inbound webhook (/api/webhook) is in webhook.go.

// webhookJSON is the spec's Outbound webhook subscription; the secret is
// write-only and shown only as has_secret. Header values are shown only
// to members with webhooks:update (the data layer empties them for the
// others); has_headers tells whether there are any.
type webhookJSON struct {
	ID         uuid.UUID         `json:"id"`
	Name       string            `json:"name"`
	URL        string            `json:"url"`
	Events     []string          `json:"events"`
	Headers    map[string]string `json:"headers"`
	HasHeaders bool              `json:"has_headers"`
	IsActive   bool              `json:"is_active"`
	HasSecret  bool              `json:"has_secret"`
	CreatedAt  time.Time         `json:"created_at"`
	UpdatedAt  time.Time         `json:"updated_at"`
}

// createdWebhookJSON is the answer of a create: the one time the secret is
// shown.
type createdWebhookJSON struct {
	webhookJSON
	Secret string `json:"secret"`
}

func presentWebhook(w *ent.WebhookSubscription) webhookJSON {
	out := webhookJSON{
		ID: w.ID, Name: w.Name, URL: w.URL, Events: w.Events, Headers: w.Headers, HasHeaders: len(w.Headers) > 0,
		IsActive: w.IsActive, HasSecret: webhooks.HasSecret(w), CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	if out.Events == nil {
		out.Events = []string{}
	}
	if out.Headers == nil {
		out.Headers = map[string]string{}
	}
	return out
}

// webhookEventJSON is an entry of available_events.
type webhookEventJSON struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description"`
}

func presentWebhookEvents(evs []webhooks.Event) []webhookEventJSON {
	out := make([]webhookEventJSON, len(evs))
	for i, e := range evs {
		out[i] = webhookEventJSON{Value: e.Value, Label: e.Label, Description: e.Description}
	}
	return out
}

// webhookAttemptJSON is one recorded attempt of a delivery.
type webhookAttemptJSON struct {
	Attempt    int       `json:"attempt"`
	StatusCode int       `json:"status_code"`
	DurationMs int       `json:"duration_ms"`
	Error      string    `json:"error"`
	CreatedAt  time.Time `json:"created_at"`
}

// webhookDeliveryJSON is one event sent to a subscription, with its
// attempts; payload is the exact body posted.
type webhookDeliveryJSON struct {
	ID             uuid.UUID            `json:"id"`
	WebhookID      uuid.UUID            `json:"webhook_id"`
	EventID        uuid.UUID            `json:"event_id"`
	Event          string               `json:"event"`
	Status         string               `json:"status"`
	AttemptCount   int                  `json:"attempt_count"`
	NextAttemptAt  *time.Time           `json:"next_attempt_at"`
	LastStatusCode *int                 `json:"last_status_code"`
	LastError      string               `json:"last_error"`
	CompletedAt    *time.Time           `json:"completed_at"`
	Payload        json.RawMessage      `json:"payload"`
	Attempts       []webhookAttemptJSON `json:"attempts"`
	CreatedAt      time.Time            `json:"created_at"`
	UpdatedAt      time.Time            `json:"updated_at"`
}

func presentWebhookDelivery(d *ent.WebhookDelivery) webhookDeliveryJSON {
	out := webhookDeliveryJSON{
		ID: d.ID, WebhookID: d.SubscriptionID, EventID: d.EventID, Event: d.Event, Status: string(d.Status),
		AttemptCount: d.Attempts, NextAttemptAt: d.NextAttemptAt, LastStatusCode: d.LastStatusCode,
		LastError: d.LastError, CompletedAt: d.CompletedAt, Payload: d.Payload,
		Attempts: make([]webhookAttemptJSON, len(d.Edges.DeliveryAttempts)), CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
	if !json.Valid(out.Payload) {
		out.Payload = json.RawMessage("null")
	}
	for i, a := range d.Edges.DeliveryAttempts {
		out.Attempts[i] = webhookAttemptJSON{
			Attempt: a.Attempt, StatusCode: a.StatusCode, DurationMs: a.DurationMs, Error: a.Error, CreatedAt: a.CreatedAt,
		}
	}
	return out
}

// createWebhookBody is the JSON of POST /api/webhooks; the bounds are
// webhooks' (TestBodyTagsMatchTheDomain), the events its catalogue.
type createWebhookBody struct {
	Name     *string           `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"255" example:"CRM"`
	URL      *string           `json:"url" required:"true" nullable:"false" minLength:"1" example:"https://crm.example.com/hooks/switchboard" description:"An http or https URL the server may reach (not a private address unless allowed)."`
	Events   []string          `json:"events" required:"true" nullable:"false" minItems:"1" description:"Events of the catalogue (available_events of GET /api/webhooks); repeats are dropped."`
	Headers  map[string]string `json:"headers" maxProperties:"20" description:"Custom request headers: HTTP token names, not reserved ones (Host, Content-Type, the signature headers), values of at most 4096 characters."`
	Secret   *string           `json:"secret" description:"The signing secret, at most 256 bytes; blank or absent: one is generated and returned once."`
	IsActive *bool             `json:"is_active" description:"Default true."`
}

// PrepareJSONSchema implements jsonschema.Preparer: the events are the
// catalogue's.
func (createWebhookBody) PrepareJSONSchema(s *jsonschema.Schema) error { return eventsEnum(s) }

// updateWebhookBody is the JSON of PUT /api/webhooks/{id}: absent or null
// fields keep their value.
type updateWebhookBody struct {
	Name     *string           `json:"name" minLength:"1" maxLength:"255"`
	URL      *string           `json:"url" minLength:"1" description:"An http or https URL the server may reach (not a private address unless allowed)."`
	Events   []string          `json:"events" minItems:"1" description:"Replaces the events: events of the catalogue (available_events of GET /api/webhooks); repeats are dropped."`
	Headers  map[string]string `json:"headers" maxProperties:"20" description:"Replaces the custom request headers: HTTP token names, not reserved ones (Host, Content-Type, the signature headers), values of at most 4096 characters."`
	Secret   *string           `json:"secret" description:"A new signing secret, at most 256 bytes; blank: kept."`
	IsActive *bool             `json:"is_active"`
}

// PrepareJSONSchema implements jsonschema.Preparer: the events are the
// catalogue's.
func (updateWebhookBody) PrepareJSONSchema(s *jsonschema.Schema) error { return eventsEnum(s) }

// eventsEnum lists the subscribable events as the enum of the items of
// s's events property (the body's schema; the reflection of the request's
// parameters, which has no properties, is left as it is).
func eventsEnum(s *jsonschema.Schema) error {
	p, ok := s.Properties["events"]
	if !ok {
		return nil
	}
	if p.TypeObject == nil || p.TypeObject.Items == nil || p.TypeObject.Items.SchemaOrBool == nil || p.TypeObject.Items.SchemaOrBool.TypeObject == nil {
		return fmt.Errorf("openapi: the events of a webhook body are not an array")
	}
	items := p.TypeObject.Items.SchemaOrBool.TypeObject
	for _, e := range webhooks.Events() {
		items.Enum = append(items.Enum, e.Value)
	}
	return nil
}

func (a *API) listWebhooks(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Webhooks.List(ctx(c), queryOf[searchQuery](c).Search, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]webhookJSON, len(pg.Webhooks))
	for i, w := range pg.Webhooks {
		out[i] = presentWebhook(w)
	}
	return http.StatusOK, webhooksData{
		Webhooks: out, AvailableEvents: presentWebhookEvents(webhooks.Events()),
		Total: pg.Total, Page: p.Page, Limit: p.Limit,
	}, nil
}

func (a *API) getWebhook(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	w, err := a.R.Webhooks.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentWebhook(w), nil
}

func (a *API) createWebhook(c *gin.Context) (int, any, error) {
	var b createWebhookBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	switch {
	case b.Name == nil:
		return 0, nil, apperr.Invalidf("name is required")
	case b.URL == nil:
		return 0, nil, apperr.Invalidf("url is required")
	case b.Events == nil:
		return 0, nil, apperr.Invalidf("events is required")
	}
	w, err := a.R.Webhooks.Create(ctx(c), webhooks.CreateInput{
		Name: *b.Name, URL: *b.URL, Events: b.Events, Headers: b.Headers, Secret: b.Secret, IsActive: b.IsActive,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, createdWebhookJSON{webhookJSON: presentWebhook(w.WebhookSubscription), Secret: w.Secret}, nil
}

func (a *API) updateWebhook(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateWebhookBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	w, err := a.R.Webhooks.Update(ctx(c), id, webhooks.UpdateInput{
		Name: b.Name, URL: b.URL, Events: b.Events, Headers: b.Headers, Secret: b.Secret, IsActive: b.IsActive,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentWebhook(w), nil
}

func (a *API) testWebhook(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	msg, err := a.R.Webhooks.Test(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: msg}, nil
}

func (a *API) listWebhookDeliveries(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p := pageOf(c)
	pg, err := a.R.Webhooks.ListDeliveries(ctx(c), id, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]webhookDeliveryJSON, len(pg.Deliveries))
	for i, d := range pg.Deliveries {
		out[i] = presentWebhookDelivery(d)
	}
	return http.StatusOK, deliveriesData{Deliveries: out, Total: pg.Total, Page: p.Page, Limit: p.Limit}, nil
}

func (a *API) replayWebhookDelivery(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	deliveryID, err := pathUUID(c, "delivery_id")
	if err != nil {
		return 0, nil, err
	}
	d, err := a.R.Webhooks.ReplayDelivery(ctx(c), id, deliveryID)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentWebhookDelivery(d), nil
}

func (a *API) deleteWebhook(c *gin.Context) (int, any, error) {
	return idAction(a.R.Webhooks.Delete, messageData{Message: "Webhook deleted"})(c)
}

// webhookSubscriptionRoutes: the test sends a request and holds no
// transaction open meanwhile.
func (a *API) webhookSubscriptionRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/webhooks", Op: "webhookSubscriptions", Query: paged(50, searchQuery{}), Out: webhooksData{}, Handle: a.listWebhooks},
		{Method: post, Path: "/api/webhooks", Op: "createWebhookSubscription", Status: http.StatusCreated, In: createWebhookBody{}, Out: createdWebhookJSON{}, Handle: a.createWebhook},
		{Method: get, Path: "/api/webhooks/:id", Op: "webhookSubscription", Out: webhookJSON{}, Handle: a.getWebhook},
		{Method: put, Path: "/api/webhooks/:id", Op: "updateWebhookSubscription", In: updateWebhookBody{}, Out: webhookJSON{}, Handle: a.updateWebhook},
		{Method: del, Path: "/api/webhooks/:id", Op: "deleteWebhookSubscription", Out: messageData{}, Handle: a.deleteWebhook},
		{Method: post, Path: "/api/webhooks/:id/test", Op: "testWebhookSubscription", Out: messageData{}, Handle: a.testWebhook},
		{Method: get, Path: "/api/webhooks/:id/deliveries", Op: "webhookDeliveries", Query: paged(50, nil), Out: deliveriesData{}, Handle: a.listWebhookDeliveries},
		{Method: post, Path: "/api/webhooks/:id/deliveries/:delivery_id/replay", Op: "replayWebhookDelivery", Out: webhookDeliveryJSON{}, Handle: a.replayWebhookDelivery},
	}
}
