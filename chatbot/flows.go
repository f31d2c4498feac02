package chatbot

import (
	"context"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/chatbotflow"
	"switchboard/ent/formflow"
	"switchboard/ent/predicate"
	"switchboard/ent/team"
	"switchboard/internal/valid"
)

const flowWhat = "chatbot flow"

// FlowInput is a new flow, or (Update) the fields to change: nil fields
// keep their value. Graph nil keeps the graph (a new flow starts with an
// empty one, which the runtime never runs); a graph given is validated
// whole. ChatAccount limits the flow to one account ("" for all).
type FlowInput struct {
	Name            *string
	Description     *string
	TriggerKeywords []string
	Enabled         *bool
	Graph           map[string]any
	ChatAccount     *string
}

// FlowPage is a page of flows with the total of the filter.
type FlowPage struct {
	Flows []*ent.ChatbotFlow
	Total int
}

// FlowsQuery returns the organization's flows whose name, description or
// trigger keywords contain search. Errors: invalid.
func (s *Service) FlowsQuery(ctx context.Context, searchText string) (*ent.ChatbotFlowQuery, error) {
	t, err := search(searchText)
	if err != nil {
		return nil, err
	}
	q := s.db(ctx).ChatbotFlow.Query()
	if t != "" {
		q = q.Where(chatbotflow.Or(chatbotflow.NameContainsFold(t), chatbotflow.DescriptionContainsFold(t),
			predicate.ChatbotFlow(jsonTextContains(chatbotflow.FieldTriggerKeywords, t))))
	}
	return q, nil
}

// ListFlows returns a page of FlowsQuery, newest first. Errors: invalid.
func (s *Service) ListFlows(ctx context.Context, searchText string, p Page) (*FlowPage, error) {
	q, err := s.FlowsQuery(ctx, searchText)
	if err != nil {
		return nil, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, flowWhat)
	}
	fs, err := q.Order(chatbotflow.ByCreatedAt(sql.OrderDesc()), chatbotflow.ByID()).
		Offset(p.Offset).Limit(p.Limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, flowWhat)
	}
	return &FlowPage{Flows: fs, Total: total}, nil
}

// GetFlow returns a flow. Errors: not_found.
func (s *Service) GetFlow(ctx context.Context, id uuid.UUID) (*ent.ChatbotFlow, error) {
	f, err := s.db(ctx).ChatbotFlow.Get(ctx, id)
	return f, apperr.Wrap(err, flowWhat)
}

type flowFields struct {
	name, description, account string
	keywords                   []string
	enabled                    bool
	graph                      map[string]any
}

// CreateFlow creates a flow (enabled unless told otherwise). Errors:
// invalid (name, texts, keywords, the graph (naming the node at fault),
// a goto_flow or chat_flow target that is not a flow of the organization
// and account, an unknown account), conflict (a trigger keyword another
// enabled flow of the organization has).
func (s *Service) CreateFlow(ctx context.Context, in FlowInput) (*ent.ChatbotFlow, error) {
	f, err := s.normalizeFlow(ctx, nil, in)
	if err != nil {
		return nil, err
	}
	out, err := s.db(ctx).ChatbotFlow.Create().SetName(f.name).SetDescription(f.description).
		SetTriggerKeywords(f.keywords).SetEnabled(f.enabled).SetGraph(f.graph).SetChatAccount(f.account).Save(ctx)
	return out, apperr.Wrap(err, flowWhat)
}

// UpdateFlow changes the given fields of a flow. Errors: as CreateFlow;
// not_found.
func (s *Service) UpdateFlow(ctx context.Context, id uuid.UUID, in FlowInput) (*ent.ChatbotFlow, error) {
	cur, err := s.GetFlow(ctx, id)
	if err != nil {
		return nil, err
	}
	f, err := s.normalizeFlow(ctx, cur, in)
	if err != nil {
		return nil, err
	}
	out, err := s.db(ctx).ChatbotFlow.UpdateOne(cur).SetName(f.name).SetDescription(f.description).
		SetTriggerKeywords(f.keywords).SetEnabled(f.enabled).SetGraph(f.graph).SetChatAccount(f.account).Save(ctx)
	return out, apperr.Wrap(err, flowWhat)
}

// DeleteFlow deletes a flow. Errors: not_found, conflict (another flow's
// goto_flow node leads to it).
func (s *Service) DeleteFlow(ctx context.Context, id uuid.UUID) error {
	db := s.db(ctx)
	if _, err := s.GetFlow(ctx, id); err != nil {
		return err
	}
	others, err := db.ChatbotFlow.Query().Where(chatbotflow.IDNEQ(id)).All(ctx)
	if err != nil {
		return apperr.Wrap(err, flowWhat)
	}
	for _, o := range others {
		g, err := ParseGraph(o.Graph)
		if err != nil {
			continue
		}
		for _, r := range g.References() {
			if r.Type == NodeGotoFlow && r.FlowID == id.String() {
				return apperr.New(apperr.Conflict, "flow %q jumps to this flow (node %q); change it first", o.Name, r.Node)
			}
		}
	}
	return apperr.Wrap(db.ChatbotFlow.DeleteOneID(id).Exec(ctx), flowWhat)
}

func (s *Service) normalizeFlow(ctx context.Context, cur *ent.ChatbotFlow, in FlowInput) (*flowFields, error) {
	f := &flowFields{enabled: true, keywords: []string{}, graph: map[string]any{}}
	var selfID uuid.UUID
	if cur != nil {
		selfID = cur.ID
		f.name, f.description, f.account, f.keywords, f.enabled, f.graph = cur.Name, cur.Description, cur.ChatAccount, cur.TriggerKeywords, cur.Enabled, cur.Graph
	}
	var err error
	if in.Name != nil || cur == nil {
		if f.name, err = valid.RequiredText("name", deref(in.Name), MaxNameLength); err != nil {
			return nil, err
		}
	}
	if in.Description != nil {
		if f.description, err = valid.Text("description", *in.Description, MaxDescription); err != nil {
			return nil, err
		}
	}
	if in.TriggerKeywords != nil {
		if f.keywords, err = keywordList("trigger_keywords", in.TriggerKeywords); err != nil {
			return nil, err
		}
	}
	if in.Enabled != nil {
		f.enabled = *in.Enabled
	}
	if in.ChatAccount != nil {
		if f.account, err = valid.Text("chat_account", *in.ChatAccount, MaxNameLength); err != nil {
			return nil, err
		}
		if f.account != "" {
			ok, err := s.db(ctx).Account.Query().Where(account.Name(f.account)).Exist(ctx)
			if err != nil {
				return nil, apperr.Wrap(err, "account")
			}
			if !ok {
				return nil, apperr.Invalidf("chat_account %q is not an account of the organization", f.account)
			}
		}
	}
	if in.Graph != nil && len(in.Graph) == 0 {
		// {}: nothing drawn yet (the builder saves the graph later); the
		// runtime never runs a flow without nodes.
		f.graph = map[string]any{}
	} else if in.Graph != nil {
		g, err := ParseGraph(in.Graph)
		if err != nil {
			return nil, err
		}
		if err := s.checkReferences(ctx, g, selfID, f.account); err != nil {
			return nil, err
		}
		f.graph = g.Map()
	}
	if f.enabled && len(f.keywords) > 0 {
		if err := s.checkTriggerKeywords(ctx, selfID, f.keywords); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// checkTriggerKeywords refuses a trigger keyword another enabled flow of
// the organization already has (compared case-insensitively), so a
// message never starts two flows.
func (s *Service) checkTriggerKeywords(ctx context.Context, self uuid.UUID, kws []string) error {
	others, err := s.db(ctx).ChatbotFlow.Query().Where(chatbotflow.Enabled(true), chatbotflow.IDNEQ(self)).All(ctx)
	if err != nil {
		return apperr.Wrap(err, flowWhat)
	}
	mine := map[string]bool{}
	for _, k := range kws {
		mine[strings.ToLower(k)] = true
	}
	for _, o := range others {
		for _, k := range o.TriggerKeywords {
			if mine[strings.ToLower(strings.TrimSpace(k))] {
				return apperr.New(apperr.Conflict, "the trigger keyword %q already starts the flow %q", k, o.Name)
			}
		}
	}
	return nil
}

// checkReferences checks the flows the graph leads to: goto_flow targets
// are other chatbot flows of the organization for the same account (or
// for all accounts), chat_flow targets are form flows of the organization
// (by id or provider flow id) of the flow's account when it has one, and
// a transfer's team exists.
func (s *Service) checkReferences(ctx context.Context, g *Graph, self uuid.UUID, acct string) error {
	db := s.db(ctx)
	for _, r := range g.References() {
		switch r.Type {
		case NodeGotoFlow:
			id, err := uuid.Parse(r.FlowID)
			if err != nil {
				return graphErr(r.Node, "config.flow_id must be a chatbot flow id")
			}
			if id == self {
				return graphErr(r.Node, "config.flow_id names this flow itself")
			}
			t, err := db.ChatbotFlow.Query().Where(chatbotflow.ID(id)).Only(ctx)
			if ent.IsNotFound(err) {
				return graphErr(r.Node, "config.flow_id: no chatbot flow %s in this organization", r.FlowID)
			}
			if err != nil {
				return apperr.Wrap(err, flowWhat)
			}
			if t.ChatAccount != "" && t.ChatAccount != acct {
				return graphErr(r.Node, "config.flow_id: flow %q belongs to account %q, not to this flow's account", t.Name, t.ChatAccount)
			}
		case NodeChatFlow:
			q := db.FormFlow.Query().Where(formflow.DeletedAtIsNil())
			if id, err := uuid.Parse(r.FlowID); err == nil {
				q = q.Where(formflow.Or(formflow.ID(id), formflow.ProviderFlowID(r.FlowID)))
			} else {
				q = q.Where(formflow.ProviderFlowID(r.FlowID))
			}
			if acct != "" {
				q = q.Where(formflow.ChatAccount(acct))
			}
			ok, err := q.Exist(ctx)
			if err != nil {
				return apperr.Wrap(err, "form flow")
			}
			if !ok {
				return graphErr(r.Node, "config.flow_id: no form flow %s in this organization and account", r.FlowID)
			}
		}
	}
	for _, n := range g.Nodes {
		if n.Type != NodeTransfer || n.Conf.TeamID == "" {
			continue
		}
		id, _ := uuid.Parse(n.Conf.TeamID)
		ok, err := db.Team.Query().Where(team.ID(id)).Exist(ctx)
		if err != nil {
			return apperr.Wrap(err, "team")
		}
		if !ok {
			return graphErr(n.ID, "config.team_id: no team %s in this organization", n.Conf.TeamID)
		}
	}
	return nil
}

// EnabledFlows returns the organization's enabled flows, for
// FlowForKeyword.
func (s *Service) EnabledFlows(ctx context.Context) ([]*ent.ChatbotFlow, error) {
	fs, err := s.db(ctx).ChatbotFlow.Query().Where(chatbotflow.Enabled(true)).All(ctx)
	return fs, apperr.Wrap(err, flowWhat)
}

// FlowForKeyword returns the enabled flow whose trigger keywords equal
// text (trimmed, case-insensitive) and that serves acct (its account, or
// all accounts); nil when none. Trigger keywords are unique across
// enabled flows, so at most one flow answers.
func FlowForKeyword(flows []*ent.ChatbotFlow, text, acct string) *ent.ChatbotFlow {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, f := range flows {
		if f == nil || !f.Enabled || (f.ChatAccount != "" && f.ChatAccount != acct) {
			continue
		}
		for _, k := range f.TriggerKeywords {
			if strings.ToLower(strings.TrimSpace(k)) == t && t != "" {
				return f
			}
		}
	}
	return nil
}
