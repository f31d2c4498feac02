package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Analytics fields of a WhatsApp Business Account, read with field
// expansion on the account's node (GET /{waba_id}?fields=<field>.start(...)...).
const (
	// AnalyticsMessaging is the messages sent and delivered per phone
	// number; granularity HALF_HOUR, DAY or MONTH.
	AnalyticsMessaging = "analytics"
	// AnalyticsPricing is the volume and cost of delivered messages by
	// pricing category and type; granularity HALF_HOUR, DAILY or MONTHLY.
	AnalyticsPricing = "pricing_analytics"
	// AnalyticsTemplates is the sent, delivered, read and clicked counts
	// of up to MaxAnalyticsTemplates templates; granularity DAILY only.
	AnalyticsTemplates = "template_analytics"
	// AnalyticsCalls is the count, cost and duration of calls;
	// granularity HALF_HOUR, DAILY or MONTHLY.
	AnalyticsCalls = "call_analytics"
)

// MaxAnalyticsTemplates is how many template ids one template analytics
// request may name.
const MaxAnalyticsTemplates = 10

// AnalyticsQuery is one analytics read of a business account.
type AnalyticsQuery struct {
	// Field is one of the Analytics* fields.
	Field string
	// Start and End bound the data (sent as UNIX seconds).
	Start, End time.Time
	// Granularity in the field's own vocabulary (DAY for analytics,
	// DAILY for the others).
	Granularity string
	// TemplateIDs are the platform's template ids (template analytics).
	TemplateIDs []string
	// MetricTypes and Dimensions are passed as given when not empty.
	MetricTypes []string
	Dimensions  []string
}

var analyticsFields = map[string]bool{
	AnalyticsMessaging: true, AnalyticsPricing: true, AnalyticsTemplates: true, AnalyticsCalls: true,
}

// expansion is the field with its filters, as the Graph API's field
// expansion writes them: analytics.start(1).end(2).granularity(DAY).
func (q AnalyticsQuery) expansion() (string, error) {
	if !analyticsFields[q.Field] {
		return "", fmt.Errorf("%w: unknown analytics field %q", ErrInvalid, q.Field)
	}
	if q.Granularity == "" || strings.ContainsAny(q.Granularity, "().,") {
		return "", fmt.Errorf("%w: granularity %q", ErrInvalid, q.Granularity)
	}
	if !q.End.After(q.Start) {
		return "", fmt.Errorf("%w: analytics end must be after start", ErrInvalid)
	}
	if len(q.TemplateIDs) > MaxAnalyticsTemplates {
		return "", fmt.Errorf("%w: at most %d template ids", ErrInvalid, MaxAnalyticsTemplates)
	}
	var b strings.Builder
	b.WriteString(q.Field)
	fmt.Fprintf(&b, ".start(%d).end(%d).granularity(%s)", q.Start.Unix(), q.End.Unix(), q.Granularity)
	for _, l := range []struct {
		name   string
		values []string
	}{{"template_ids", q.TemplateIDs}, {"metric_types", q.MetricTypes}, {"dimensions", q.Dimensions}} {
		if len(l.values) == 0 {
			continue
		}
		for _, v := range l.values {
			if v == "" {
				return "", fmt.Errorf("%w: empty value in %s", ErrInvalid, l.name)
			}
		}
		list, err := json.Marshal(l.values)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		fmt.Fprintf(&b, ".%s(%s)", l.name, list)
	}
	return b.String(), nil
}

// BusinessAnalytics reads one analytics field of acc's business account
// (GET /{waba_id}?fields=<field>.start(s).end(e).granularity(g)...) and
// returns the field's object as the platform answers it (for example
// {"phone_numbers": [...], "granularity": "DAY", "data_points": [...]}
// for messaging analytics, {"data": [{"data_points": [...]}]} for the
// others); an account without data for the range gets an empty object.
//
// Errors: ErrInvalid for a missing business account id or a bad query;
// *Error for a Graph error answer (a granularity the field refuses, a
// range beyond the lookback window, template analytics not enabled);
// ErrUnexpectedResponse for a malformed answer; a transport error
// otherwise.
func (c *Client) BusinessAnalytics(ctx context.Context, acc Account, q AnalyticsQuery) (map[string]any, error) {
	fields, err := q.expansion()
	if err != nil {
		return nil, err
	}
	u, err := c.endpoint(acc, url.Values{"fields": {fields}}, acc.BusinessID)
	if err != nil {
		return nil, err
	}
	r := getRequest(u)
	r.what = "GET /" + acc.BusinessID + "?fields=" + q.Field
	var answer map[string]json.RawMessage
	if err := c.doJSON(ctx, acc, r, &answer); err != nil {
		return nil, err
	}
	out := map[string]any{}
	raw, ok := answer[q.Field]
	if !ok || string(raw) == "null" {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %s is not an object: %v", ErrUnexpectedResponse, r.what, q.Field, err)
	}
	return out, nil
}
