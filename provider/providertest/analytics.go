package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The business account's analytics, read with field expansion on its node:
// GET /{waba_id}?fields=analytics.start(1700000000).end(1700086400).granularity(DAY).
// The fake checks what the platform documents (start and end UNIX seconds,
// end after start, the granularities each field accepts, at most 10
// template ids, the lookback windows) and answers with one data point per
// bucket whose numbers follow from its start, so that tests can compute
// them: sent = day of month, delivered = sent - 1 (messaging); volume =
// day of month, cost = volume * 0.01 (pricing); template sent = day of
// month, delivered, read (template); count = day of month (calls).

var expansionRE = regexp.MustCompile(`^(analytics|pricing_analytics|template_analytics|call_analytics)((?:\.[a-z_]+\([^()]*\))*)$`)
var filterRE = regexp.MustCompile(`\.([a-z_]+)\(([^()]*)\)`)

// analyticsGranularities are the granularities each field accepts.
var analyticsGranularities = map[string]map[string]time.Duration{
	"analytics":          {"HALF_HOUR": 30 * time.Minute, "DAY": 24 * time.Hour, "MONTH": 0},
	"pricing_analytics":  {"HALF_HOUR": 30 * time.Minute, "DAILY": 24 * time.Hour, "MONTHLY": 0},
	"call_analytics":     {"HALF_HOUR": 30 * time.Minute, "DAILY": 24 * time.Hour, "MONTHLY": 0},
	"template_analytics": {"DAILY": 24 * time.Hour},
}

// Lookback windows: one year for messaging, pricing and call analytics,
// 90 days for template analytics.
const (
	lookback         = 366 * 24 * time.Hour
	templateLookback = 90 * 24 * time.Hour
	maxDataPoints    = 5000
)

// isAnalytics reports whether a GET of a node asks for analytics.
func isAnalytics(fields string) bool { return expansionRE.MatchString(fields) }

// businessAnalytics answers an analytics read of the business account id.
func (f *Fake) businessAnalytics(w http.ResponseWriter, id, fields string) {
	m := expansionRE.FindStringSubmatch(fields)
	field := m[1]
	filters := map[string]string{}
	for _, fm := range filterRE.FindAllStringSubmatch(m[2], -1) {
		filters[fm[1]] = fm[2]
	}
	bad := func(msg string) { InvalidParameter(msg).write(w) }
	start, err1 := strconv.ParseInt(filters["start"], 10, 64)
	end, err2 := strconv.ParseInt(filters["end"], 10, 64)
	if err1 != nil || err2 != nil {
		bad("start and end are required UNIX timestamps")
		return
	}
	if end <= start {
		bad("end must be after start")
		return
	}
	g := filters["granularity"]
	step, ok := analyticsGranularities[field][g]
	if !ok {
		bad(fmt.Sprintf("granularity %q is not supported for %s", g, field))
		return
	}
	window := lookback
	if field == "template_analytics" {
		window = templateLookback
	}
	from, to := time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC()
	if time.Since(from) > window+24*time.Hour {
		bad("start is beyond the lookback window")
		return
	}
	var templateIDs []string
	if raw, ok := filters["template_ids"]; ok {
		if err := json.Unmarshal([]byte(raw), &templateIDs); err != nil {
			bad("template_ids must be a JSON array of strings")
			return
		}
	}
	if field == "template_analytics" && (len(templateIDs) == 0 || len(templateIDs) > 10) {
		bad("template_ids must name 1 to 10 templates")
		return
	}
	var points []map[string]any
	for t := from; t.Before(to) && len(points) < maxDataPoints; {
		next := t.Add(step)
		if step == 0 {
			next = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		}
		if next.After(to) {
			next = to
		}
		n := t.Day()
		p := map[string]any{"start": t.Unix(), "end": next.Unix()}
		switch field {
		case "analytics":
			p["sent"], p["delivered"] = n, n-1
		case "pricing_analytics":
			p["volume"], p["cost"] = n, float64(n)/100
			p["pricing_category"], p["pricing_type"] = "MARKETING", "REGULAR"
		case "call_analytics":
			p["count"], p["cost"], p["average_duration"] = n, float64(n)/10, 60
			p["direction"] = "USER_INITIATED"
		}
		if field == "template_analytics" {
			for _, tid := range templateIDs {
				points = append(points, map[string]any{
					"template_id": tid, "start": t.Unix(), "end": next.Unix(),
					"sent": n, "delivered": n, "read": n / 2,
					"clicked": []map[string]any{{"type": "quick_reply_button", "button_content": "Yes", "count": n / 3}},
				})
			}
		} else {
			points = append(points, p)
		}
		t = next
	}
	var body map[string]any
	switch field {
	case "analytics":
		body = map[string]any{"phone_numbers": []string{"15550001111"}, "granularity": g, "data_points": points}
	case "template_analytics":
		body = map[string]any{"data": []map[string]any{{"granularity": g, "product_type": "cloud_api", "data_points": points}}}
	default:
		body = map[string]any{"data": []map[string]any{{"data_points": points}}}
	}
	JSON(http.StatusOK, map[string]any{field: body, "id": id}).write(w)
}

// AnalyticsRequests returns the analytics reads the fake received, by
// field name ("analytics", "pricing_analytics"...), with their filters.
func (f *Fake) AnalyticsRequests() []AnalyticsRequest {
	var out []AnalyticsRequest
	for _, r := range f.Requests() {
		fields := r.Query.Get("fields")
		if r.Method != http.MethodGet || !isAnalytics(fields) {
			continue
		}
		m := expansionRE.FindStringSubmatch(fields)
		ar := AnalyticsRequest{Request: r, Field: m[1], Filters: map[string]string{}}
		for _, fm := range filterRE.FindAllStringSubmatch(m[2], -1) {
			ar.Filters[fm[1]] = fm[2]
		}
		ar.BusinessID = strings.TrimPrefix(r.Endpoint, "/")
		out = append(out, ar)
	}
	return out
}

// AnalyticsRequest is one analytics read: the field and its filters
// (start, end, granularity, template_ids...) as written in the request.
type AnalyticsRequest struct {
	Request
	BusinessID string
	Field      string
	Filters    map[string]string
}
