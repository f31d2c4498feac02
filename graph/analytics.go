package graph

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"switchboard/analytics"
)

// analyticsPeriodGroup reads a report's period and trend bucket.
func analyticsPeriodGroup(from, to, groupBy *string) (analytics.Period, analytics.GroupBy, error) {
	p, err := analytics.ParsePeriod(deref(from), deref(to), time.Now())
	if err != nil {
		return p, "", err
	}
	g, err := analytics.ParseGroupBy(deref(groupBy))
	return p, g, err
}

// platformInput writes GraphQL's arguments as the query parameters the
// operation parses, so that both transports check them alike.
func platformInput(typ, start, end string, accountID *uuid.UUID, granularity *string, templateIDs []string) analytics.PlatformInput {
	in := analytics.PlatformInput{Type: typ, Start: start, End: end, Granularity: deref(granularity)}
	if accountID != nil {
		in.AccountID = accountID.String()
	}
	if len(templateIDs) > 0 {
		b, _ := json.Marshal(templateIDs)
		in.TemplateIDs = string(b)
	}
	return in
}
