package webhooks

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/netguard"
	"switchboard/outbound"
)

// userAgent identifies deliveries to receivers.
const userAgent = "Switchboard-Webhooks/1.0"

// post makes one signed HTTP attempt: the body exactly as given, the
// subscription's custom headers, then the contract's headers (which custom
// headers cannot override). A nil secret sends no signatures (a
// subscription stored without one).
func (d *Dispatcher) post(ctx context.Context, sub *ent.WebhookSubscription, eventID, event string, body, secret []byte) outbound.Outcome {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(body))
	if err != nil {
		return outbound.NewOutcome(nil, err, time.Since(start))
	}
	for name, value := range sub.Headers {
		req.Header.Set(name, value)
	}
	if secret != nil {
		for name, values := range outbound.Sign(secret, eventID, time.Now(), body) {
			req.Header[name] = values
		}
	}
	outbound.SetEvent(req.Header, event)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)

	resp, err := d.http.Do(req)
	if resp != nil {
		// Reading the (capped) answer lets the connection be reused; its
		// content does not matter.
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	o := outbound.NewOutcome(resp, err, time.Since(start))
	if err != nil {
		// The attempt's error is shown to the subscription's owners: it
		// says what kind of failure, the log says which addresses.
		d.log.Info("webhook attempt failed", "subscription_id", sub.ID, "event", event, "err", err)
		o.Error = netguard.PublicMessage(err)
	}
	return o
}

// secretOf opens a subscription's signing secret: its HMAC key, or nil when
// the subscription has none.
func (d *Dispatcher) secretOf(sub *ent.WebhookSubscription) ([]byte, error) {
	if len(sub.SecretEncrypted) == 0 {
		return nil, nil
	}
	plain, err := d.secrets.Open(sub.SecretEncrypted)
	if err != nil {
		return nil, err
	}
	return outbound.SecretBytes(string(plain)), nil
}

// SendTest posts a signed EventTest event to the subscription at once,
// through the same client and signing as deliveries, and returns how the
// receiver answered. Nothing is stored. It fails only when the secret
// cannot be opened or the body cannot be built.
func (d *Dispatcher) SendTest(ctx context.Context, sub *ent.WebhookSubscription) (outbound.Outcome, error) {
	secret, err := d.secretOf(sub)
	if err != nil {
		return outbound.Outcome{}, err
	}
	eventID := uuid.New()
	body, err := outbound.Envelope(eventID.String(), EventTest, now(), sub.OrganizationID.String(), map[string]any{
		"message":    "This is a test event from Switchboard.",
		"webhook_id": sub.ID,
		"name":       sub.Name,
	})
	if err != nil {
		return outbound.Outcome{}, err
	}
	return d.post(ctx, sub, eventID.String(), EventTest, body, secret), nil
}
