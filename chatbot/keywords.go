package chatbot

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/keywordrule"
	"switchboard/ent/predicate"
	"switchboard/internal/valid"
)

// Keyword match types.
const (
	MatchExact      = "exact"
	MatchContains   = "contains"
	MatchStartsWith = "starts_with"
	MatchRegex      = "regex"
)

// MatchTypes lists the keyword match types.
var MatchTypes = []string{MatchExact, MatchContains, MatchStartsWith, MatchRegex}

// ResponseTypes are a keyword rule's answers: a text (with optional reply
// buttons) or a hand-off to people (with an optional message first).
var ResponseTypes = []string{"text", "transfer"}

const ruleWhat = "keyword rule"

// KeywordInput is a new keyword rule, or (Update) the fields to change:
// nil fields keep their value. An empty name takes the keywords joined.
// ResponseContent is {body, buttons[{id, title}]}.
type KeywordInput struct {
	Name            *string
	Keywords        []string
	MatchType       *string
	ResponseType    *string
	ResponseContent map[string]any
	Priority        *int
	Enabled         *bool
}

// KeywordPage is a page of keyword rules with the total of the filter.
type KeywordPage struct {
	Rules []*ent.KeywordRule
	Total int
}

// ResponseContent is a keyword rule's answer.
type ResponseContent struct {
	Body    string   `json:"body"`
	Buttons []Button `json:"buttons,omitempty"`
}

func checkResponse(responseType string, raw map[string]any) (map[string]any, error) {
	b, _ := json.Marshal(raw)
	var rc ResponseContent
	if err := json.Unmarshal(b, &rc); err != nil {
		return nil, apperr.Invalidf("response_content must be {body: string, buttons: [{id, title}]}")
	}
	check := valid.Text
	if responseType == "text" {
		check = valid.RequiredText
	}
	body, err := check("response_content.body", rc.Body, MaxMessageLength)
	if err != nil {
		return nil, err
	}
	if len(rc.Buttons) > 0 && responseType != "text" {
		return nil, apperr.Invalidf("response_content.buttons belong to text responses")
	}
	if err := CheckButtons(rc.Buttons); err != nil {
		return nil, apperr.Invalidf("response_content.buttons: %s", err.Error())
	}
	out := map[string]any{"body": body}
	if len(rc.Buttons) > 0 {
		out["buttons"] = toMaps(rc.Buttons)
	}
	return out, nil
}

// checkKeywords validates keywords for a match type: at least one, and
// each a valid RE2 pattern for regex.
func checkKeywords(kws []string, matchType string) error {
	if len(kws) == 0 {
		return apperr.Invalidf("keywords needs at least one keyword")
	}
	if matchType == MatchRegex {
		for _, k := range kws {
			if _, err := CompileRegex(k); err != nil {
				return apperr.Invalidf("keywords: %q: %s", k, err.Error())
			}
		}
	}
	return nil
}

// KeywordsQuery returns the organization's keyword rules whose name or
// keywords contain search. Errors: invalid.
func (s *Service) KeywordsQuery(ctx context.Context, searchText string) (*ent.KeywordRuleQuery, error) {
	t, err := search(searchText)
	if err != nil {
		return nil, err
	}
	q := s.db(ctx).KeywordRule.Query()
	if t != "" {
		q = q.Where(keywordrule.Or(keywordrule.NameContainsFold(t), predicate.KeywordRule(jsonTextContains(keywordrule.FieldKeywords, t))))
	}
	return q, nil
}

// jsonTextContains matches rows whose JSON column, read as text, holds s
// (case-insensitive): a search inside string arrays.
func jsonTextContains(column, s string) func(*sql.Selector) {
	return func(sel *sql.Selector) {
		pattern := "%" + likeEscaper.Replace(strings.ToLower(s)) + "%"
		sel.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("LOWER(CAST(").WriteString(sel.C(column)).WriteString(" AS TEXT)) LIKE ")
			b.Arg(pattern)
			b.WriteString(` ESCAPE '\'`)
		}))
	}
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// ListKeywords returns a page of KeywordsQuery, highest priority first.
// Errors: invalid.
func (s *Service) ListKeywords(ctx context.Context, searchText string, p Page) (*KeywordPage, error) {
	q, err := s.KeywordsQuery(ctx, searchText)
	if err != nil {
		return nil, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, ruleWhat)
	}
	rs, err := q.Order(keywordrule.ByPriority(sql.OrderDesc()), keywordrule.ByCreatedAt(), keywordrule.ByID()).
		Offset(p.Offset).Limit(p.Limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, ruleWhat)
	}
	return &KeywordPage{Rules: rs, Total: total}, nil
}

// GetKeyword returns a keyword rule. Errors: not_found.
func (s *Service) GetKeyword(ctx context.Context, id uuid.UUID) (*ent.KeywordRule, error) {
	r, err := s.db(ctx).KeywordRule.Get(ctx, id)
	return r, apperr.Wrap(err, ruleWhat)
}

// normalized is a keyword rule after validation.
type normalized struct {
	name, matchType, responseType string
	keywords                      []string
	content                       map[string]any
}

func (s *Service) normalizeKeyword(cur *ent.KeywordRule, in KeywordInput) (*normalized, error) {
	n := &normalized{matchType: MatchContains, responseType: "text", content: map[string]any{}}
	if cur != nil {
		n.name, n.matchType, n.responseType, n.keywords, n.content = cur.Name, string(cur.MatchType), cur.ResponseType, cur.Keywords, cur.ResponseContent
	}
	var err error
	if in.Keywords != nil {
		if n.keywords, err = keywordList("keywords", in.Keywords); err != nil {
			return nil, err
		}
	}
	if in.MatchType != nil {
		if !slices.Contains(MatchTypes, *in.MatchType) {
			return nil, apperr.Invalidf("match_type must be one of %s", strings.Join(MatchTypes, ", "))
		}
		n.matchType = *in.MatchType
	}
	if in.ResponseType != nil {
		if !slices.Contains(ResponseTypes, *in.ResponseType) {
			return nil, apperr.Invalidf("response_type must be one of %s", strings.Join(ResponseTypes, ", "))
		}
		n.responseType = *in.ResponseType
	}
	if err := checkKeywords(n.keywords, n.matchType); err != nil {
		return nil, err
	}
	if in.ResponseContent != nil || cur == nil || in.ResponseType != nil {
		raw := in.ResponseContent
		if raw == nil {
			raw = n.content
		}
		if n.content, err = checkResponse(n.responseType, raw); err != nil {
			return nil, err
		}
	}
	if in.Name != nil {
		if n.name, err = valid.Text("name", *in.Name, MaxNameLength); err != nil {
			return nil, err
		}
	}
	if n.name == "" {
		n.name = truncate(strings.Join(n.keywords, ", "), MaxNameLength)
	}
	if in.Priority != nil {
		if err := priority(*in.Priority); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func truncate(s string, max int) string {
	r := []rune(s)
	if len(r) > max {
		return string(r[:max])
	}
	return s
}

// CreateKeyword creates a keyword rule (enabled unless told otherwise;
// match_type contains and response_type text by default). Errors: invalid
// (no keyword, a keyword or name too long, an unknown match or response
// type, an invalid or too long regex, a missing text body, buttons).
func (s *Service) CreateKeyword(ctx context.Context, in KeywordInput) (*ent.KeywordRule, error) {
	n, err := s.normalizeKeyword(nil, in)
	if err != nil {
		return nil, err
	}
	r, err := s.db(ctx).KeywordRule.Create().SetName(n.name).SetKeywords(n.keywords).
		SetMatchType(keywordrule.MatchType(n.matchType)).SetResponseType(n.responseType).
		SetResponseContent(n.content).SetNillablePriority(in.Priority).SetNillableEnabled(in.Enabled).Save(ctx)
	return r, apperr.Wrap(err, ruleWhat)
}

// UpdateKeyword changes the given fields of a keyword rule. Errors: as
// CreateKeyword; not_found.
func (s *Service) UpdateKeyword(ctx context.Context, id uuid.UUID, in KeywordInput) (*ent.KeywordRule, error) {
	cur, err := s.GetKeyword(ctx, id)
	if err != nil {
		return nil, err
	}
	n, err := s.normalizeKeyword(cur, in)
	if err != nil {
		return nil, err
	}
	r, err := s.db(ctx).KeywordRule.UpdateOne(cur).SetName(n.name).SetKeywords(n.keywords).
		SetMatchType(keywordrule.MatchType(n.matchType)).SetResponseType(n.responseType).
		SetResponseContent(n.content).SetNillablePriority(in.Priority).SetNillableEnabled(in.Enabled).Save(ctx)
	return r, apperr.Wrap(err, ruleWhat)
}

// DeleteKeyword deletes a keyword rule. Errors: not_found.
func (s *Service) DeleteKeyword(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(s.db(ctx).KeywordRule.DeleteOneID(id).Exec(ctx), ruleWhat)
}

// EnabledKeywords returns the organization's enabled keyword rules, for
// MatchKeyword.
func (s *Service) EnabledKeywords(ctx context.Context) ([]*ent.KeywordRule, error) {
	rs, err := s.db(ctx).KeywordRule.Query().Where(keywordrule.Enabled(true)).All(ctx)
	return rs, apperr.Wrap(err, ruleWhat)
}

// MatchKeyword returns the enabled rule that answers text: rules are tried
// by priority (highest first; ties by creation, then id), keywords
// compared case-insensitively after trimming the text (exact: equal,
// contains, starts_with, regex: RE2 match anywhere). Nil when none
// matches. A regex that no longer compiles never matches.
func MatchKeyword(rules []*ent.KeywordRule, text string) *ent.KeywordRule {
	t := strings.ToLower(strings.TrimSpace(text))
	ordered := slices.Clone(rules)
	sort.SliceStable(ordered, func(i, j int) bool {
		a, b := ordered[i], ordered[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID.String() < b.ID.String()
	})
	for _, r := range ordered {
		if r == nil || !r.Enabled {
			continue
		}
		for _, k := range r.Keywords {
			if keywordMatches(string(r.MatchType), k, t) {
				return r
			}
		}
	}
	return nil
}

func keywordMatches(matchType, keyword, lowered string) bool {
	k := strings.ToLower(strings.TrimSpace(keyword))
	if k == "" {
		return false
	}
	switch matchType {
	case MatchExact:
		return lowered == k
	case MatchContains:
		return strings.Contains(lowered, k)
	case MatchStartsWith:
		return strings.HasPrefix(lowered, k)
	case MatchRegex:
		re, err := cachedRegex(keyword)
		return err == nil && re.MatchString(lowered)
	}
	return false
}

// regexCache keeps compiled keyword patterns for MatchKeyword, so a
// message does not recompile every regex rule; it is emptied when it
// reaches maxCachedRegexes (patterns come from stored rules).
var regexCache = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

const maxCachedRegexes = 10000

func cachedRegex(p string) (*regexp.Regexp, error) {
	regexCache.Lock()
	re, ok := regexCache.m[p]
	regexCache.Unlock()
	if ok {
		return re, nil
	}
	re, err := CompileRegex(p)
	if err != nil {
		return nil, err
	}
	regexCache.Lock()
	if len(regexCache.m) >= maxCachedRegexes {
		regexCache.m = map[string]*regexp.Regexp{}
	}
	regexCache.m[p] = re
	regexCache.Unlock()
	return re, nil
}
