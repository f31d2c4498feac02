package analytics

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/template"
	"switchboard/provider"
)

// The platform's analytics types (analytics_type).
const (
	TypeMessaging = "analytics"
	TypePricing   = "pricing_analytics"
	TypeTemplates = "template_analytics"
	TypeCalls     = "call_analytics"
)

// Granularities a client asks for.
const (
	HalfHour = "HALF_HOUR"
	Day      = "DAY"
	Month    = "MONTH"
)

// Bounds of a platform query: the platform keeps one year of messaging,
// pricing and call analytics and 90 days of template analytics.
const (
	LookbackDays         = 366
	TemplateLookbackDays = 90
	maxTemplateID        = 32
)

// DefaultCacheTTL is how long a platform answer is served from Redis.
const DefaultCacheTTL = 15 * time.Minute

// PlatformInput is a query of the platform's analytics as a client
// writes it (query parameters).
type PlatformInput struct {
	Type        string
	Start, End  string
	AccountID   string
	Granularity string
	// TemplateIDs is a JSON array of the platform's template ids.
	TemplateIDs string
}

// PlatformQuery is a checked query: the days [Start, End), the account
// (nil: every account with an access token) and the granularity in the
// field's own vocabulary, adjusted to the platform's rules.
type PlatformQuery struct {
	Type        string
	Start, End  time.Time
	AccountID   *uuid.UUID
	Granularity string
	TemplateIDs []string
}

// ParsePlatform checks a query of the platform's analytics and adjusts its
// granularity to what the platform accepts for the type: template
// analytics are daily only; pricing and call analytics name the day and
// the month DAILY and MONTHLY. Errors: invalid (a missing or unknown type,
// a bad date, end before start, a range beyond the platform's lookback
// window, a bad account id, granularity or template id list).
func ParsePlatform(in PlatformInput, now time.Time) (PlatformQuery, error) {
	q := PlatformQuery{Type: in.Type}
	switch in.Type {
	case TypeMessaging, TypePricing, TypeTemplates, TypeCalls:
	case "":
		return q, apperr.Invalidf("analytics_type is required (analytics, pricing_analytics, template_analytics or call_analytics)")
	default:
		return q, apperr.Invalidf("analytics_type must be analytics, pricing_analytics, template_analytics or call_analytics")
	}
	if in.Start == "" || in.End == "" {
		return q, apperr.Invalidf("start and end are required (YYYY-MM-DD)")
	}
	var err error
	if q.Start, err = parseDay("start", in.Start); err != nil {
		return q, err
	}
	if q.End, err = parseDay("end", in.End); err != nil {
		return q, err
	}
	q.End = q.End.AddDate(0, 0, 1)
	if !q.End.After(q.Start) {
		return q, apperr.Invalidf("end must not be before start")
	}
	window := LookbackDays
	if in.Type == TypeTemplates {
		window = TemplateLookbackDays
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if q.Start.Before(today.AddDate(0, 0, -window)) || int(q.End.Sub(q.Start).Hours()/24) > window {
		return q, apperr.Invalidf("%s reaches back at most %d days", in.Type, window)
	}
	if in.AccountID != "" {
		id, err := uuid.Parse(in.AccountID)
		if err != nil {
			return q, apperr.Invalidf("account_id must be a UUID")
		}
		q.AccountID = &id
	}
	g := strings.ToUpper(strings.TrimSpace(in.Granularity))
	switch g {
	case "":
		g = Day
	case HalfHour, Day, Month:
	default:
		return q, apperr.Invalidf("granularity must be HALF_HOUR, DAY or MONTH")
	}
	switch {
	case in.Type == TypeTemplates:
		g = "DAILY"
	case in.Type != TypeMessaging && g == Day:
		g = "DAILY"
	case in.Type != TypeMessaging && g == Month:
		g = "MONTHLY"
	}
	q.Granularity = g
	if in.TemplateIDs != "" {
		if err := json.Unmarshal([]byte(in.TemplateIDs), &q.TemplateIDs); err != nil {
			return q, apperr.Invalidf("template_ids must be a JSON array of strings")
		}
		if len(q.TemplateIDs) > provider.MaxAnalyticsTemplates {
			return q, apperr.Invalidf("template_ids names at most %d templates", provider.MaxAnalyticsTemplates)
		}
		for _, id := range q.TemplateIDs {
			if id == "" || len(id) > maxTemplateID || strings.Trim(id, "0123456789") != "" {
				return q, apperr.Invalidf("template_ids must be the platform's numeric template ids")
			}
		}
	}
	return q, nil
}

// key is the query's cache key within the organization.
func (q PlatformQuery) key() string {
	acc := ""
	if q.AccountID != nil {
		acc = q.AccountID.String()
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{
		q.Type, q.Start.Format(time.DateOnly), q.End.Format(time.DateOnly), acc, q.Granularity,
		strings.Join(q.TemplateIDs, ","),
	}, "|")))
	return hex.EncodeToString(sum[:12])
}

// PlatformAccount is one business account's analytics.
type PlatformAccount struct {
	AccountID   uuid.UUID      `json:"account_id"`
	AccountName string         `json:"account_name"`
	Data        map[string]any `json:"data"`
	// TemplateNames maps the platform's template ids of the answer to the
	// templates' names (template analytics only).
	TemplateNames map[string]any `json:"template_names,omitempty"`
}

// PlatformReport is the platform's analytics of the organization's
// accounts; Cached tells that it came from the cache.
type PlatformReport struct {
	Accounts    []*PlatformAccount `json:"accounts"`
	Granularity string             `json:"granularity"`
	Cached      bool               `json:"cached"`
}

// AccountRef names an account the platform's analytics can be read for.
type AccountRef struct {
	ID      uuid.UUID `json:"id"`
	Name    string    `json:"name"`
	PhoneID string    `json:"phone_id"`
}

// PlatformAccounts lists the organization's accounts, by name.
// Errors: unauthenticated.
func (s *Service) PlatformAccounts(ctx context.Context) ([]*AccountRef, error) {
	if _, err := viewerOf(ctx); err != nil {
		return nil, err
	}
	as, err := s.db(ctx).Account.Query().Order(ent.Asc(account.FieldName)).
		Select(account.FieldID, account.FieldName, account.FieldPhoneID).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "accounts")
	}
	out := make([]*AccountRef, len(as))
	for i, a := range as {
		out[i] = &AccountRef{ID: a.ID, Name: a.Name, PhoneID: a.PhoneID}
	}
	return out, nil
}

// Platform reads the platform's analytics of one account or of every
// account holding an access token, from the cache when the organization
// asked the same query within CacheTTL. Errors: unauthenticated,
// not_found (account_id), invalid (the account has no access token, or
// the platform refused the query), unavailable (the platform failed).
func (s *Service) Platform(ctx context.Context, q PlatformQuery) (*PlatformReport, error) {
	v, err := viewerOf(ctx)
	if err != nil {
		return nil, err
	}
	key := s.cacheKey(v.OrgID, q.key())
	if r := s.cached(ctx, key); r != nil {
		return r, nil
	}
	db := s.db(ctx)
	aq := db.Account.Query().Order(ent.Asc(account.FieldName))
	if q.AccountID != nil {
		aq.Where(account.ID(*q.AccountID))
	}
	as, err := aq.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	if q.AccountID != nil && len(as) == 0 {
		return nil, apperr.NotFoundf("account not found")
	}
	r := &PlatformReport{Accounts: []*PlatformAccount{}, Granularity: q.Granularity}
	for _, a := range as {
		if !accounts.HasAccessToken(a) {
			if q.AccountID != nil {
				return nil, apperr.Invalidf("the account has no access token")
			}
			continue
		}
		pa, err := s.platformAccount(ctx, db, a, q)
		if err != nil {
			return nil, err
		}
		r.Accounts = append(r.Accounts, pa)
	}
	s.store(ctx, v.OrgID, key, r)
	return r, nil
}

// platformAccount reads one account's analytics.
func (s *Service) platformAccount(ctx context.Context, db *ent.Client, a *ent.Account, q PlatformQuery) (*PlatformAccount, error) {
	pa := &PlatformAccount{AccountID: a.ID, AccountName: a.Name, Data: map[string]any{}}
	pq := provider.AnalyticsQuery{Field: q.Type, Start: q.Start, End: q.End, Granularity: q.Granularity}
	switch q.Type {
	case TypePricing:
		pq.Dimensions = []string{"PRICING_CATEGORY", "PRICING_TYPE"}
	case TypeCalls:
		pq.MetricTypes = []string{"COUNT", "COST", "AVERAGE_DURATION"}
		pq.Dimensions = []string{"DIRECTION"}
	case TypeTemplates:
		names, ids, err := templateNames(ctx, db, a.Name, q.TemplateIDs)
		if err != nil {
			return nil, err
		}
		pa.TemplateNames = names
		if len(ids) == 0 {
			return pa, nil // no submitted template to ask about
		}
		pq.TemplateIDs = ids
		pq.MetricTypes = []string{"SENT", "DELIVERED", "READ", "CLICKED"}
	}
	if s.Secrets == nil || s.Provider == nil {
		return nil, apperr.New(apperr.Internal, "the platform client is not configured")
	}
	token, err := s.Secrets.Open(a.AccessTokenEncrypted)
	if err != nil {
		return nil, &apperr.Error{Code: apperr.Internal, Message: "internal error", Err: err}
	}
	acc := provider.Account{PhoneID: a.PhoneID, BusinessID: a.BusinessID, AccessToken: string(token), APIVersion: a.APIVersion}
	data, err := s.Provider.BusinessAnalytics(ctx, acc, pq)
	if err != nil {
		return nil, provider.AppError(err)
	}
	pa.Data = data
	return pa, nil
}

// templateNames names the asked template ids, or (none asked) picks the
// account's latest submitted templates, at most the platform's limit.
func templateNames(ctx context.Context, db *ent.Client, accountName string, asked []string) (map[string]any, []string, error) {
	tq := db.Template.Query().Select(template.FieldProviderTemplateID, template.FieldName)
	if len(asked) > 0 {
		tq.Where(template.ProviderTemplateIDIn(asked...))
	} else {
		tq.Where(template.ChatAccount(accountName), template.ProviderTemplateIDNEQ("")).
			Order(ent.Desc(template.FieldUpdatedAt)).Limit(provider.MaxAnalyticsTemplates)
	}
	ts, err := tq.All(ctx)
	if err != nil {
		return nil, nil, apperr.Wrap(err, "templates")
	}
	names := map[string]any{}
	ids := asked
	for _, t := range ts {
		names[t.ProviderTemplateID] = t.Name
		if len(asked) == 0 {
			ids = append(ids, t.ProviderTemplateID)
		}
	}
	return names, ids, nil
}

// RefreshPlatform forgets the organization's cached platform analytics.
// Errors: unauthenticated, unavailable (Redis failed).
func (s *Service) RefreshPlatform(ctx context.Context) error {
	v, err := viewerOf(ctx)
	if err != nil {
		return err
	}
	if s.Redis == nil {
		return nil
	}
	index := s.indexKey(v.OrgID)
	keys, err := s.Redis.SMembers(ctx, index).Result()
	if err != nil {
		return apperr.New(apperr.Unavailable, "the cache could not be cleared")
	}
	if err := s.Redis.Del(ctx, append(keys, index)...).Err(); err != nil {
		return apperr.New(apperr.Unavailable, "the cache could not be cleared")
	}
	return nil
}

func (s *Service) ttl() time.Duration {
	if s.CacheTTL > 0 {
		return s.CacheTTL
	}
	return DefaultCacheTTL
}

func (s *Service) cacheKey(org uuid.UUID, query string) string {
	return s.Prefix + "analytics:provider:" + org.String() + ":" + query
}

// indexKey holds the organization's cache keys, so that a refresh finds
// them without scanning Redis.
func (s *Service) indexKey(org uuid.UUID) string {
	return s.Prefix + "analytics:provider:" + org.String() + ":keys"
}

// cached returns the cached report of key, or nil. A cache failure is a
// miss: the platform answers instead.
func (s *Service) cached(ctx context.Context, key string) *PlatformReport {
	if s.Redis == nil {
		return nil
	}
	b, err := s.Redis.Get(ctx, key).Bytes()
	if err != nil {
		return nil
	}
	var r PlatformReport
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	r.Cached = true
	return &r
}

// store caches r under key for CacheTTL; a failure only costs the next
// request a platform call.
func (s *Service) store(ctx context.Context, org uuid.UUID, key string, r *PlatformReport) {
	if s.Redis == nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	index := s.indexKey(org)
	pipe := s.Redis.TxPipeline()
	pipe.Set(ctx, key, b, s.ttl())
	pipe.SAdd(ctx, index, key)
	pipe.Expire(ctx, index, s.ttl())
	_, _ = pipe.Exec(ctx)
}
