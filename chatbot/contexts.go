package chatbot

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/aicontext"
	"switchboard/ent/predicate"
	"switchboard/internal/valid"
)

const contextWhat = "AI context"

// Context types.
const (
	ContextStatic = "static"
	ContextAPI    = "api"
)

// APIConfig is how an api context fetches its content: a request
// (url with {{variables}}, method, headers, body) and response_path, the
// part of the JSON answer to use (empty: the whole body). Fetched through
// netguard with a timeout and size cap by the runtime.
type APIConfig struct {
	URL          string            `json:"url"`
	Method       string            `json:"method"`
	Headers      map[string]string `json:"headers"`
	Body         string            `json:"body"`
	ResponsePath string            `json:"response_path"`
}

// ContextInput is a new AI context, or (Update) the fields to change: nil
// fields keep their value. APIConfig is required for api contexts.
type ContextInput struct {
	Name            *string
	ContextType     *string
	TriggerKeywords []string
	StaticContent   *string
	APIConfig       map[string]any
	Priority        *int
	Enabled         *bool
}

// ContextPage is a page of AI contexts with the total of the filter.
type ContextPage struct {
	Contexts []*ent.AIContext
	Total    int
}

// ParseAPIConfig reads and checks an api context's config: an http(s) URL,
// a method GET or POST, bounded headers and body.
func ParseAPIConfig(raw map[string]any) (*APIConfig, error) {
	b, _ := json.Marshal(raw)
	var c APIConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, apperr.Invalidf("api_config must be {url, method, headers{name: value}, body, response_path} with string values")
	}
	if err := CheckRequestURL(c.URL); err != nil {
		return nil, apperr.Invalidf("api_config.url: %s", err.Error())
	}
	c.Method = strings.ToUpper(strings.TrimSpace(c.Method))
	if c.Method == "" {
		c.Method = "GET"
	}
	if c.Method != "GET" && c.Method != "POST" {
		return nil, apperr.Invalidf("api_config.method must be GET or POST")
	}
	if err := CheckHeaders(c.Headers); err != nil {
		return nil, apperr.Invalidf("api_config.headers: %s", err.Error())
	}
	if len(c.Body) > MaxTextLength {
		return nil, apperr.Invalidf("api_config.body must be at most %d characters", MaxTextLength)
	}
	if len(c.ResponsePath) > MaxPathLength {
		return nil, apperr.Invalidf("api_config.response_path must be at most %d characters", MaxPathLength)
	}
	if c.Headers == nil {
		c.Headers = map[string]string{}
	}
	return &c, nil
}

// ContextsQuery returns the organization's AI contexts whose name,
// content or trigger keywords contain search. Errors: invalid.
func (s *Service) ContextsQuery(ctx context.Context, searchText string) (*ent.AIContextQuery, error) {
	t, err := search(searchText)
	if err != nil {
		return nil, err
	}
	q := s.db(ctx).AIContext.Query()
	if t != "" {
		q = q.Where(aicontext.Or(aicontext.NameContainsFold(t), aicontext.StaticContentContainsFold(t),
			predicate.AIContext(jsonTextContains(aicontext.FieldTriggerKeywords, t))))
	}
	return q, nil
}

// ListContexts returns a page of ContextsQuery, highest priority first.
// Errors: invalid.
func (s *Service) ListContexts(ctx context.Context, searchText string, p Page) (*ContextPage, error) {
	q, err := s.ContextsQuery(ctx, searchText)
	if err != nil {
		return nil, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, contextWhat)
	}
	cs, err := q.Order(aicontext.ByPriority(sql.OrderDesc()), aicontext.ByCreatedAt(), aicontext.ByID()).
		Offset(p.Offset).Limit(p.Limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, contextWhat)
	}
	return &ContextPage{Contexts: cs, Total: total}, nil
}

// GetContext returns an AI context. Errors: not_found.
func (s *Service) GetContext(ctx context.Context, id uuid.UUID) (*ent.AIContext, error) {
	c, err := s.db(ctx).AIContext.Get(ctx, id)
	return c, apperr.Wrap(err, contextWhat)
}

type contextFields struct {
	name, typ, content string
	keywords           []string
	api                map[string]any
}

func normalizeContext(cur *ent.AIContext, in ContextInput) (*contextFields, error) {
	f := &contextFields{typ: ContextStatic, keywords: []string{}, api: map[string]any{}}
	if cur != nil {
		f.name, f.typ, f.content, f.keywords, f.api = cur.Name, string(cur.ContextType), cur.StaticContent, cur.TriggerKeywords, cur.APIConfig
	}
	var err error
	if in.Name != nil || cur == nil {
		if f.name, err = valid.RequiredText("name", deref(in.Name), MaxNameLength); err != nil {
			return nil, err
		}
	}
	if in.ContextType != nil {
		if *in.ContextType != ContextStatic && *in.ContextType != ContextAPI {
			return nil, apperr.Invalidf("context_type must be static or api")
		}
		f.typ = *in.ContextType
	}
	if in.TriggerKeywords != nil {
		if f.keywords, err = keywordList("trigger_keywords", in.TriggerKeywords); err != nil {
			return nil, err
		}
	}
	if in.StaticContent != nil {
		if f.content, err = valid.Text("static_content", *in.StaticContent, MaxContextContent); err != nil {
			return nil, err
		}
	}
	if in.APIConfig != nil {
		f.api = in.APIConfig
	}
	if f.typ == ContextAPI {
		c, err := ParseAPIConfig(f.api)
		if err != nil {
			return nil, err
		}
		f.api = toMap(c)
	} else {
		f.api = map[string]any{}
		if strings.TrimSpace(f.content) == "" {
			return nil, apperr.Invalidf("static_content is required for a static context")
		}
	}
	if in.Priority != nil {
		if err := priority(*in.Priority); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func toMap(v any) map[string]any {
	out := map[string]any{}
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &out)
	return out
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// CreateContext creates an AI context (static by default, enabled).
// Errors: invalid (name, type, keywords, content too long or missing for
// static, api_config for api).
func (s *Service) CreateContext(ctx context.Context, in ContextInput) (*ent.AIContext, error) {
	f, err := normalizeContext(nil, in)
	if err != nil {
		return nil, err
	}
	c, err := s.db(ctx).AIContext.Create().SetName(f.name).SetContextType(aicontext.ContextType(f.typ)).
		SetTriggerKeywords(f.keywords).SetStaticContent(f.content).SetAPIConfig(f.api).
		SetNillablePriority(in.Priority).SetNillableEnabled(in.Enabled).Save(ctx)
	return c, apperr.Wrap(err, contextWhat)
}

// UpdateContext changes the given fields. Errors: as CreateContext;
// not_found.
func (s *Service) UpdateContext(ctx context.Context, id uuid.UUID, in ContextInput) (*ent.AIContext, error) {
	cur, err := s.GetContext(ctx, id)
	if err != nil {
		return nil, err
	}
	f, err := normalizeContext(cur, in)
	if err != nil {
		return nil, err
	}
	c, err := s.db(ctx).AIContext.UpdateOne(cur).SetName(f.name).SetContextType(aicontext.ContextType(f.typ)).
		SetTriggerKeywords(f.keywords).SetStaticContent(f.content).SetAPIConfig(f.api).
		SetNillablePriority(in.Priority).SetNillableEnabled(in.Enabled).Save(ctx)
	return c, apperr.Wrap(err, contextWhat)
}

// DeleteContext deletes an AI context. Errors: not_found.
func (s *Service) DeleteContext(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(s.db(ctx).AIContext.DeleteOneID(id).Exec(ctx), contextWhat)
}

// EnabledContexts returns the organization's enabled AI contexts, for
// MatchContexts.
func (s *Service) EnabledContexts(ctx context.Context) ([]*ent.AIContext, error) {
	cs, err := s.db(ctx).AIContext.Query().Where(aicontext.Enabled(true)).All(ctx)
	return cs, apperr.Wrap(err, contextWhat)
}

// MatchContexts returns the enabled contexts to give the AI for text:
// those without trigger keywords, and those one of whose keywords the
// text contains (case-insensitive), highest priority first.
func MatchContexts(contexts []*ent.AIContext, text string) []*ent.AIContext {
	t := strings.ToLower(text)
	var out []*ent.AIContext
	for _, c := range contexts {
		if c == nil || !c.Enabled {
			continue
		}
		if len(c.TriggerKeywords) == 0 || slices.ContainsFunc(c.TriggerKeywords, func(k string) bool {
			k = strings.ToLower(strings.TrimSpace(k))
			return k != "" && strings.Contains(t, k)
		}) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Priority > out[j].Priority })
	return out
}
