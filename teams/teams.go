// Package teams owns the organization's teams and their members: a team's
// name, description, assignment strategy and per-agent timeout, its
// members with their seat (manager or agent), and the member counts lists
// show. Changing a team or its members needs the membership rule
// access.ManagesTeam (teams:update, or a manager seat of that team); the
// permissions of the other operations are the route's. It does not touch
// transfers (package transfers reads teams and their members) nor the
// organization's people (package people). Transports (rest/, graph/) call
// its Service.
package teams

import (
	"context"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/team"
	"switchboard/ent/teammember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// MaxTimeoutSecs bounds a team's per-agent timeout (a day).
const MaxTimeoutSecs = 86400

// Service is the teams' operations.
type Service struct {
	Client *ent.Client
}

// CreateInput is a new team; nil fields take the schema's defaults.
type CreateInput struct {
	Name                string
	Description         *string
	AssignmentStrategy  *team.AssignmentStrategy
	PerAgentTimeoutSecs *int
	IsActive            *bool
}

// UpdateInput changes the non-nil fields of a team.
type UpdateInput struct {
	Name                *string
	Description         *string
	AssignmentStrategy  *team.AssignmentStrategy
	PerAgentTimeoutSecs *int
	IsActive            *bool
}

// MemberInput adds a member of the organization to a team; a nil Role is
// an agent seat.
type MemberInput struct {
	UserID uuid.UUID
	Role   *teammember.Role
}

// Page is one page of teams with what the list shows of each.
type Page struct {
	Teams        []*ent.Team
	MemberCounts map[uuid.UUID]int
	CreatorNames map[uuid.UUID]string
	Total        int
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Query returns the teams of the viewer's organization matching search
// (name or description, case-insensitive), newest first.
func (s *Service) Query(ctx context.Context, search string) *ent.TeamQuery {
	q := s.db(ctx).Team.Query()
	if t := strings.TrimSpace(search); t != "" {
		q = q.Where(team.Or(team.NameContainsFold(t), team.DescriptionContainsFold(t)))
	}
	return q
}

// Get returns a team with its members and their users. Errors:
// not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.Team, error) {
	t, err := s.db(ctx).Team.Query().Where(team.ID(id)).WithCreatedBy().
		WithMembers(func(q *ent.TeamMemberQuery) { q.WithUser().Order(ent.Asc(teammember.FieldCreatedAt)) }).
		Only(ctx)
	return t, apperr.Wrap(err, "team")
}

// List returns a page of Query ordered by name, in one query: member
// counts and creator names come from subqueries and the total from a
// window count.
func (s *Service) List(ctx context.Context, search string, offset, limit int) (*Page, error) {
	teams, err := s.Query(ctx, search).
		Modify(func(sel *sql.Selector) {
			tm, u := sql.Table(teammember.Table), sql.Table(user.Table)
			sel.AppendSelectExprAs(sql.Select(sql.Count("*")).From(tm).
				Where(sql.ColumnsEQ(tm.C(teammember.FieldTeamID), sel.C(team.FieldID))), "member_count")
			sel.AppendSelectExprAs(sql.Select(u.C(user.FieldFullName)).From(u).
				Where(sql.ColumnsEQ(u.C(user.FieldID), sel.C(team.FieldCreatedByID))), "created_by_name")
		}, database.WithTotal).
		Order(ent.Asc(team.FieldName), ent.Asc(team.FieldID)).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	page := &Page{Teams: teams, MemberCounts: map[uuid.UUID]int{}, CreatorNames: map[uuid.UUID]string{}}
	for _, t := range teams {
		page.MemberCounts[t.ID] = database.IntValue(t.Value("member_count"))
		page.CreatorNames[t.ID] = database.StringValue(t.Value("created_by_name"))
	}
	if page.Total, err = database.PageTotal(teams, offset, func() (int, error) { return s.Query(ctx, search).Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	return page, nil
}

// MemberCounts counts the members of each team in ids with one query.
func (s *Service) MemberCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []struct {
		TeamID uuid.UUID `json:"team_id"`
		Count  int       `json:"count"`
	}
	err := s.db(ctx).TeamMember.Query().Where(teammember.TeamIDIn(ids...)).
		GroupBy(teammember.FieldTeamID).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	out := make(map[uuid.UUID]int, len(rows))
	for _, row := range rows {
		out[row.TeamID] = row.Count
	}
	return out, nil
}

// Create creates a team. Errors: invalid (name missing, too long,
// duplicate; a timeout outside 0..MaxTimeoutSecs).
func (s *Service) Create(ctx context.Context, in CreateInput) (*ent.Team, error) {
	name, err := valid.RequiredText("name", in.Name, 0)
	if err != nil {
		return nil, err
	}
	if err := checkTimeout(in.PerAgentTimeoutSecs); err != nil {
		return nil, err
	}
	c := s.db(ctx).Team.Create().SetName(name).
		SetNillableDescription(in.Description).
		SetNillableAssignmentStrategy(in.AssignmentStrategy).
		SetNillablePerAgentTimeoutSecs(in.PerAgentTimeoutSecs).
		SetNillableIsActive(in.IsActive)
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		c.SetCreatedByID(v.UserID)
	}
	t, err := c.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	return s.Get(ctx, t.ID)
}

func checkTimeout(secs *int) error {
	if secs != nil && (*secs < 0 || *secs > MaxTimeoutSecs) {
		return apperr.Invalidf("per_agent_timeout_secs must be between 0 and %d", MaxTimeoutSecs)
	}
	return nil
}

// Update changes the given fields. Only a viewer the rule
// access.ManagesTeam allows may. Errors: not_found, forbidden, invalid.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*ent.Team, error) {
	if err := s.requireManager(ctx, id); err != nil {
		return nil, err
	}
	if err := checkTimeout(in.PerAgentTimeoutSecs); err != nil {
		return nil, err
	}
	u := s.db(ctx).Team.UpdateOneID(id).
		SetNillableDescription(in.Description).
		SetNillableAssignmentStrategy(in.AssignmentStrategy).
		SetNillablePerAgentTimeoutSecs(in.PerAgentTimeoutSecs).
		SetNillableIsActive(in.IsActive)
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if name == "" {
			return nil, apperr.Invalidf("name cannot be empty")
		}
		u.SetName(name)
	}
	if _, err := u.Save(ctx); err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	return s.Get(ctx, id)
}

// Delete deletes a team and its memberships. Errors: not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(s.db(ctx).Team.DeleteOneID(id).Exec(ctx), "team")
}

// requireManager finds the team in the viewer's organization and applies
// access.ManagesTeam. Errors: not_found, forbidden.
func (s *Service) requireManager(ctx context.Context, teamID uuid.UUID) error {
	db := s.db(ctx)
	exists, err := db.Team.Query().Where(team.ID(teamID)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "team")
	}
	if !exists {
		return apperr.NotFoundf("team not found")
	}
	return access.CheckManagesTeam(ctx, db, viewer.FromContext(ctx), teamID)
}

// Members lists a team's members with their users. Errors: not_found.
func (s *Service) Members(ctx context.Context, teamID uuid.UUID) ([]*ent.TeamMember, error) {
	t, err := s.Get(ctx, teamID)
	if err != nil {
		return nil, err
	}
	return t.Edges.Members, nil
}

// AddMember adds a member of the organization to a team, or changes the
// seat of one who is already in it. Only a viewer the rule
// access.ManagesTeam allows may. Errors: not_found, forbidden, invalid
// (user not in the organization).
func (s *Service) AddMember(ctx context.Context, teamID uuid.UUID, in MemberInput) (*ent.TeamMember, error) {
	if err := s.requireManager(ctx, teamID); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	inOrg, err := db.User.Query().Where(user.ID(in.UserID)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	if !inOrg {
		return nil, apperr.Invalidf("user_id is not a member of this organization")
	}
	role := teammember.RoleAgent
	if in.Role != nil {
		role = *in.Role
	}
	existing, err := db.TeamMember.Query().Where(teammember.TeamID(teamID), teammember.UserID(in.UserID)).Only(ctx)
	switch {
	case err == nil:
		existing, err = existing.Update().SetRole(role).Save(ctx)
	case ent.IsNotFound(err):
		existing, err = db.TeamMember.Create().SetTeamID(teamID).SetUserID(in.UserID).SetRole(role).Save(ctx)
	}
	if err != nil {
		return nil, apperr.Wrap(err, "team member")
	}
	return db.TeamMember.Query().Where(teammember.ID(existing.ID)).WithUser().Only(ctx)
}

// RemoveMember removes a user from a team. Only a viewer the rule
// access.ManagesTeam allows may. Errors: not_found, forbidden.
func (s *Service) RemoveMember(ctx context.Context, teamID, userID uuid.UUID) error {
	if err := s.requireManager(ctx, teamID); err != nil {
		return err
	}
	n, err := s.db(ctx).TeamMember.Delete().Where(teammember.TeamID(teamID), teammember.UserID(userID)).Exec(ctx)
	if err != nil {
		return apperr.Wrap(err, "team member")
	}
	if n == 0 {
		return apperr.NotFoundf("team member not found")
	}
	return nil
}
