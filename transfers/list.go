package transfers

import (
	"context"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/contact"
	"switchboard/ent/predicate"
	"switchboard/ent/team"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
)

// View is a transfer as the API and its events show it (the spec's
// fields; names are filled for what was included).
type View struct {
	ID              uuid.UUID  `json:"id"`
	OrganizationID  uuid.UUID  `json:"-"`
	ContactID       uuid.UUID  `json:"contact_id"`
	ContactName     string     `json:"contact_name"`
	PhoneNumber     string     `json:"phone_number"`
	ChatAccount     string     `json:"chat_account"`
	Status          string     `json:"status"`
	Source          string     `json:"source"`
	AgentID         *uuid.UUID `json:"agent_id"`
	AgentName       string     `json:"agent_name"`
	TeamID          *uuid.UUID `json:"team_id"`
	TeamName        string     `json:"team_name"`
	Notes           string     `json:"notes"`
	TransferredAt   time.Time  `json:"transferred_at"`
	AssignedAt      *time.Time `json:"assigned_at"`
	ResumedAt       *time.Time `json:"resumed_at"`
	ResumedByID     *uuid.UUID `json:"resumed_by_id"`
	FirstResponseAt *time.Time `json:"first_response_at"`
}

// Include names the related names a list fills.
type Include struct{ Contact, Agent, Team bool }

// ParseInclude reads the include query value ("contact,agent", "all");
// empty includes all.
func ParseInclude(s string) (Include, error) {
	if strings.TrimSpace(s) == "" {
		return Include{true, true, true}, nil
	}
	var in Include
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case "contact":
			in.Contact = true
		case "agent":
			in.Agent = true
		case "team":
			in.Team = true
		case "all":
			in = Include{true, true, true}
		default:
			return in, apperr.Invalidf("include must list contact, agent, team or all")
		}
	}
	return in, nil
}

// ListInput filters a list of transfers.
type ListInput struct {
	// Status is "", active or resumed.
	Status  string
	Queue   Queue
	Include Include
	Limit   int
	Offset  int
}

// QueueCount is the number of unassigned active transfers of a team's
// queue.
type QueueCount struct {
	TeamID uuid.UUID
	Count  int
}

// Page is a page of transfers and the queue counts the viewer may see.
type Page struct {
	Transfers         []*View
	GeneralQueueCount int
	TeamQueueCounts   []QueueCount
	TotalCount        int
	Limit, Offset     int
}

// List returns the transfers the viewer may see (see the package comment),
// newest first, with the counts of the queues (active and unassigned) they
// may see. Errors: invalid (status, limit, offset).
func (s *Service) List(ctx context.Context, in ListInput) (*Page, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	switch in.Status {
	case "", StatusActive, StatusResumed:
	default:
		return nil, apperr.Invalidf("status must be active or resumed")
	}
	if in.Limit < 1 || in.Offset < 0 || in.Offset > MaxOffset {
		return nil, apperr.Invalidf("limit must be a positive integer and offset between 0 and %d", MaxOffset)
	}
	in.Limit = min(in.Limit, MaxPageSize)
	db := database.ClientFor(ctx, s.Client)
	visible, queues, err := s.visibility(ctx, db, v)
	if err != nil {
		return nil, err
	}
	q := db.AgentTransfer.Query().Where(visible)
	if in.Status != "" {
		q = q.Where(agenttransfer.StatusEQ(agenttransfer.Status(in.Status)))
	}
	switch {
	case in.Queue.General:
		q = q.Where(agenttransfer.TeamIDIsNil())
	case !in.Queue.All:
		q = q.Where(agenttransfer.TeamID(in.Queue.TeamID))
	}
	// Counted up to the bound, or the requested page when deeper (docs/api.md).
	total, _, err := database.CountUpTo(ctx, q, max(database.CountBound, in.Offset+in.Limit))
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	at, err := database.PageAt(ctx, q.Order(ent.Desc(agenttransfer.FieldTransferredAt), ent.Desc(agenttransfer.FieldID)),
		in.Offset, in.Limit, agenttransfer.IDIn)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	ts, err := at.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	views, err := s.views(ctx, db, ts, in.Include)
	if err != nil {
		return nil, err
	}
	page := &Page{Transfers: views, TotalCount: total, Limit: in.Limit, Offset: in.Offset, TeamQueueCounts: []QueueCount{}}
	var rows []struct {
		TeamID *uuid.UUID `json:"team_id"`
		Count  int        `json:"count"`
	}
	err = db.AgentTransfer.Query().
		Where(agenttransfer.StatusEQ(agenttransfer.StatusActive), agenttransfer.AgentIDIsNil(), queues).
		GroupBy(agenttransfer.FieldTeamID).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	for _, r := range rows {
		if r.TeamID == nil {
			page.GeneralQueueCount = r.Count
		} else {
			page.TeamQueueCounts = append(page.TeamQueueCounts, QueueCount{TeamID: *r.TeamID, Count: r.Count})
		}
	}
	slices.SortFunc(page.TeamQueueCounts, func(a, b QueueCount) int { return strings.Compare(a.TeamID.String(), b.TeamID.String()) })
	return page, nil
}

// Get returns a transfer the viewer may see (as List decides). Errors:
// not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*View, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	visible, _, err := s.visibility(ctx, db, v)
	if err != nil {
		return nil, err
	}
	t, err := db.AgentTransfer.Query().Where(agenttransfer.ID(id), visible).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	vs, err := s.views(ctx, db, []*ent.AgentTransfer{t}, Include{true, true, true})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// visibility returns what the viewer may see: every transfer under
// access.ManagesTransfers; else their own and the unassigned ones of the general
// queue and their teams' queues (only their own with
// agent_current_conversation_only). queues limits the queue counts alike.
func (s *Service) visibility(ctx context.Context, db *ent.Client, v *viewer.Viewer) (visible, queues predicate.AgentTransfer, err error) {
	all := func(*sql.Selector) {}
	if access.ManagesTransfers(v) {
		return all, all, nil
	}
	st, err := s.settings(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	mine := agenttransfer.AgentID(v.UserID)
	if st.currentOnly {
		return mine, agenttransfer.IDIn(), nil
	}
	teams, err := s.myTeams(ctx, db, v.UserID)
	if err != nil {
		return nil, nil, err
	}
	queues = agenttransfer.Or(agenttransfer.TeamIDIsNil(), agenttransfer.TeamIDIn(teams...))
	return agenttransfer.Or(mine, agenttransfer.And(agenttransfer.AgentIDIsNil(), queues)), queues, nil
}

// view loads one transfer with every name.
func (s *Service) view(ctx context.Context, db *ent.Client, id uuid.UUID) (*View, error) {
	t, err := db.AgentTransfer.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	vs, err := s.views(ctx, db, []*ent.AgentTransfer{t}, Include{true, true, true})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// views renders transfers, loading the included names with one query per
// kind.
func (s *Service) views(ctx context.Context, db *ent.Client, ts []*ent.AgentTransfer, inc Include) ([]*View, error) {
	var contactIDs, agentIDs, teamIDs []uuid.UUID
	for _, t := range ts {
		contactIDs = append(contactIDs, t.ContactID)
		if t.AgentID != nil {
			agentIDs = append(agentIDs, *t.AgentID)
		}
		if t.TeamID != nil {
			teamIDs = append(teamIDs, *t.TeamID)
		}
	}
	contacts := map[uuid.UUID]*ent.Contact{}
	agents := map[uuid.UUID]string{}
	teams := map[uuid.UUID]string{}
	if inc.Contact && len(contactIDs) > 0 {
		cs, err := db.Contact.Query().Where(contact.IDIn(contactIDs...)).
			Select(contact.FieldID, contact.FieldName, contact.FieldProfileName, contact.FieldPhoneNumber).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "contact")
		}
		for _, c := range cs {
			contacts[c.ID] = c
		}
	}
	if inc.Agent && len(agentIDs) > 0 {
		us, err := db.User.Query().Where(user.IDIn(agentIDs...)).Select(user.FieldID, user.FieldFullName).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "user")
		}
		for _, u := range us {
			agents[u.ID] = u.FullName
		}
	}
	if inc.Team && len(teamIDs) > 0 {
		tms, err := db.Team.Query().Where(team.IDIn(teamIDs...)).Select(team.FieldID, team.FieldName).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "team")
		}
		for _, tm := range tms {
			teams[tm.ID] = tm.Name
		}
	}
	out := make([]*View, len(ts))
	for i, t := range ts {
		v := &View{
			ID: t.ID, OrganizationID: t.OrganizationID, ContactID: t.ContactID, ChatAccount: t.ChatAccount,
			Status: string(t.Status), Source: t.Source, AgentID: t.AgentID, TeamID: t.TeamID, Notes: t.Notes,
			TransferredAt: t.TransferredAt, AssignedAt: t.AssignedAt, ResumedAt: t.ResumedAt,
			ResumedByID: t.ResumedByID, FirstResponseAt: t.FirstResponseAt,
		}
		if c := contacts[t.ContactID]; c != nil {
			v.ContactName, v.PhoneNumber = c.Name, c.PhoneNumber
			if v.ContactName == "" {
				v.ContactName = c.ProfileName
			}
		}
		if t.AgentID != nil {
			v.AgentName = agents[*t.AgentID]
		}
		if t.TeamID != nil {
			v.TeamName = teams[*t.TeamID]
		}
		out[i] = v
	}
	return out, nil
}
