// Package outbound holds what an outbound webhook delivery needs besides the
// network: the JSON envelope, the two signatures of the contract (Standard
// Webhooks and the sha256= compatibility header), subscription secrets, the
// retry schedule, and how an attempt is recorded.
//
// It must not send requests, read the database or know the queue: the
// delivery worker does those, with a netguard client, and asks this package
// what to sign and when to try again.
package outbound

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of a delivery. http.Header stores them canonicalised
// ("Webhook-Id"); header names are case-insensitive on the wire.
const (
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
	HeaderSignature        = "X-Webhook-Signature"
	HeaderEvent            = "X-Webhook-Event"
)

// DefaultTolerance is how far a webhook-timestamp may be from the receiver's
// clock, the value the Standard Webhooks libraries use.
const DefaultTolerance = 5 * time.Minute

// Verification errors.
var (
	ErrMissingHeaders      = errors.New("webhook-id, webhook-timestamp or webhook-signature header missing")
	ErrInvalidTimestamp    = errors.New("webhook-timestamp is not a unix time in seconds")
	ErrTimestampTolerance  = errors.New("webhook-timestamp is outside the tolerance")
	ErrNoMatchingSignature = errors.New("no signature matches")
)

// Sign returns the signature headers of one attempt at delivering body:
//
//	webhook-id: eventID
//	webhook-timestamp: ts in unix seconds
//	webhook-signature: v1,<base64 HMAC-SHA256(secret, "{eventID}.{timestamp}.{body}")>
//	X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, body)>
//
// secret is the key bytes (see SecretBytes); both signatures use the same
// ones. eventID stays the same on every retry while ts is the time of the
// attempt. Event IDs are UUIDs, so they hold no "." to confuse the signed
// content. Add X-Webhook-Event with SetEvent.
func Sign(secret []byte, eventID string, ts time.Time, body []byte) http.Header {
	unix := strconv.FormatInt(ts.Unix(), 10)
	h := make(http.Header, 5)
	h.Set(HeaderWebhookID, eventID)
	h.Set(HeaderWebhookTimestamp, unix)
	h.Set(HeaderWebhookSignature, "v1,"+base64.StdEncoding.EncodeToString(standardMAC(secret, eventID, unix, body)))
	h.Set(HeaderSignature, "sha256="+hex.EncodeToString(bodyMAC(secret, body)))
	return h
}

// SetEvent sets the X-Webhook-Event header to the event name.
func SetEvent(h http.Header, event string) {
	h.Set(HeaderEvent, event)
}

// Verify checks a delivery as a receiver would, against the current time:
// see VerifyAt.
func Verify(secret []byte, h http.Header, body []byte, tolerance time.Duration) error {
	return VerifyAt(secret, h, body, tolerance, time.Now())
}

// VerifyAt checks the Standard Webhooks headers of a delivery: the timestamp
// must be within tolerance of now (DefaultTolerance when tolerance is zero or
// less), and one of the space-separated "v1," signatures must match body.
// Signatures of other versions are skipped. It returns nil or one of
// ErrMissingHeaders, ErrInvalidTimestamp, ErrTimestampTolerance and
// ErrNoMatchingSignature.
func VerifyAt(secret []byte, h http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	id := h.Get(HeaderWebhookID)
	ts := h.Get(HeaderWebhookTimestamp)
	sigs := strings.Join(h.Values(HeaderWebhookSignature), " ")
	if id == "" || ts == "" || strings.TrimSpace(sigs) == "" {
		return ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrInvalidTimestamp
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	// Compare in seconds, so far-off values cannot overflow a Duration.
	tol := int64(tolerance / time.Second)
	if d := now.Unix() - sec; d > tol || d < -tol {
		return ErrTimestampTolerance
	}

	want := standardMAC(secret, id, ts, body)
	for _, sig := range strings.Fields(sigs) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoMatchingSignature
}

// VerifyCompat checks the X-Webhook-Signature header ("sha256=<hex>") for
// receivers that only use it. It has no timestamp, so it does not stop
// replays. It returns nil, ErrMissingHeaders or ErrNoMatchingSignature.
func VerifyCompat(secret []byte, h http.Header, body []byte) error {
	v := h.Get(HeaderSignature)
	if v == "" {
		return ErrMissingHeaders
	}
	hexSig, ok := strings.CutPrefix(v, "sha256=")
	if !ok {
		return ErrNoMatchingSignature
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || !hmac.Equal(got, bodyMAC(secret, body)) {
		return ErrNoMatchingSignature
	}
	return nil
}

// standardMAC is HMAC-SHA256(secret, "{id}.{ts}.{body}"), with ts exactly
// as sent.
func standardMAC(secret []byte, id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

func bodyMAC(secret []byte, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}
