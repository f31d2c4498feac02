package graph

import (
	"context"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/team"
	"switchboard/ent/teammember"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// TeamsQuery returns the teams of the viewer's organization matching search
// (name or description, case-insensitive), newest first.
func (r *Resolver) TeamsQuery(ctx context.Context, search string) *ent.TeamQuery {
	q := r.db(ctx).Team.Query()
	if s := strings.TrimSpace(search); s != "" {
		q = q.Where(team.Or(team.NameContainsFold(s), team.DescriptionContainsFold(s)))
	}
	return q
}

// GetTeam returns a team with its members and their users. Errors:
// not_found.
func (r *Resolver) GetTeam(ctx context.Context, id uuid.UUID) (*ent.Team, error) {
	t, err := r.db(ctx).Team.Query().Where(team.ID(id)).WithCreatedBy().
		WithMembers(func(q *ent.TeamMemberQuery) { q.WithUser().Order(ent.Asc(teammember.FieldCreatedAt)) }).
		Only(ctx)
	return t, apperr.Wrap(err, "team")
}

// TeamPage is one page of teams with what the list shows of each.
type TeamPage struct {
	Teams        []*ent.Team
	MemberCounts map[uuid.UUID]int
	CreatorNames map[uuid.UUID]string
	Total        int
}

// ListTeams returns a page of TeamsQuery ordered by name, in one query:
// member counts and creator names come from subqueries and the total from
// a window count.
func (r *Resolver) ListTeams(ctx context.Context, search string, offset, limit int) (*TeamPage, error) {
	teams, err := r.TeamsQuery(ctx, search).
		Modify(func(s *sql.Selector) {
			tm, u := sql.Table(teammember.Table), sql.Table(user.Table)
			s.AppendSelectExprAs(sql.Select(sql.Count("*")).From(tm).
				Where(sql.ColumnsEQ(tm.C(teammember.FieldTeamID), s.C(team.FieldID))), "member_count")
			s.AppendSelectExprAs(sql.Select(u.C(user.FieldFullName)).From(u).
				Where(sql.ColumnsEQ(u.C(user.FieldID), s.C(team.FieldCreatedByID))), "created_by_name")
		}, withTotal).
		Order(ent.Asc(team.FieldName), ent.Asc(team.FieldID)).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	page := &TeamPage{Teams: teams, MemberCounts: map[uuid.UUID]int{}, CreatorNames: map[uuid.UUID]string{}}
	for _, t := range teams {
		page.MemberCounts[t.ID] = intValue(t.Value("member_count"))
		page.CreatorNames[t.ID] = stringValue(t.Value("created_by_name"))
	}
	if page.Total, err = pageTotal(teams, offset, func() (int, error) { return r.TeamsQuery(ctx, search).Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "team")
	}
	return page, nil
}

// TeamMemberCounts counts the members of each team in ids with one query.
func (r *Resolver) TeamMemberCounts(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []struct {
		TeamID uuid.UUID `json:"team_id"`
		Count  int       `json:"count"`
	}
	err := r.db(ctx).TeamMember.Query().Where(teammember.TeamIDIn(ids...)).
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

// CreateTeam creates a team. Errors: invalid (name missing, too long,
// duplicate).
func (r *Resolver) CreateTeam(ctx context.Context, in model.CreateTeamInput) (*ent.Team, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, apperr.Invalidf("name is required")
	}
	if err := validTimeout(in.PerAgentTimeoutSecs); err != nil {
		return nil, err
	}
	c := r.db(ctx).Team.Create().SetName(name).
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
	return r.GetTeam(ctx, t.ID)
}

func validTimeout(secs *int) error {
	if secs != nil && (*secs < 0 || *secs > 86400) {
		return apperr.Invalidf("per_agent_timeout_secs must be between 0 and 86400")
	}
	return nil
}

// UpdateTeam changes the given fields. Only an admin (teams:update) or a
// manager of this team may. Errors: not_found, forbidden, invalid.
func (r *Resolver) UpdateTeam(ctx context.Context, id uuid.UUID, in model.UpdateTeamInput) (*ent.Team, error) {
	if err := r.requireTeamManager(ctx, id); err != nil {
		return nil, err
	}
	if err := validTimeout(in.PerAgentTimeoutSecs); err != nil {
		return nil, err
	}
	u := r.db(ctx).Team.UpdateOneID(id).
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
	return r.GetTeam(ctx, id)
}

// DeleteTeam deletes a team and its memberships. Errors: not_found.
func (r *Resolver) DeleteTeam(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(r.db(ctx).Team.DeleteOneID(id).Exec(ctx), "team")
}

// requireTeamManager allows admins (teams:update) and managers of the team.
func (r *Resolver) requireTeamManager(ctx context.Context, teamID uuid.UUID) error {
	v := viewer.FromContext(ctx)
	exists, err := r.db(ctx).Team.Query().Where(team.ID(teamID)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "team")
	}
	if !exists {
		return apperr.NotFoundf("team not found")
	}
	if v.Can("teams:update") {
		return nil
	}
	isManager, err := r.db(ctx).TeamMember.Query().Where(teammember.TeamID(teamID),
		teammember.UserID(v.UserID), teammember.RoleEQ(teammember.RoleManager)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "team")
	}
	if !isManager {
		return apperr.Forbiddenf("only an admin or a manager of this team may change it")
	}
	return nil
}

// TeamMembers lists a team's members with their users. Errors: not_found.
func (r *Resolver) TeamMembers(ctx context.Context, teamID uuid.UUID) ([]*ent.TeamMember, error) {
	t, err := r.GetTeam(ctx, teamID)
	if err != nil {
		return nil, err
	}
	return t.Edges.Members, nil
}

// AddTeamMember adds a member of the organization to a team, or changes
// the role of one who is already in it. Errors: not_found, forbidden,
// invalid (user not in the organization).
func (r *Resolver) AddTeamMember(ctx context.Context, teamID uuid.UUID, in model.AddTeamMemberInput) (*ent.TeamMember, error) {
	if err := r.requireTeamManager(ctx, teamID); err != nil {
		return nil, err
	}
	inOrg, err := r.db(ctx).User.Query().Where(user.ID(in.UserID)).Exist(ctx)
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
	db := r.db(ctx)
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

// RemoveTeamMember removes a user from a team. Errors: not_found,
// forbidden.
func (r *Resolver) RemoveTeamMember(ctx context.Context, teamID, userID uuid.UUID) error {
	if err := r.requireTeamManager(ctx, teamID); err != nil {
		return err
	}
	n, err := r.db(ctx).TeamMember.Delete().Where(teammember.TeamID(teamID), teammember.UserID(userID)).Exec(ctx)
	if err != nil {
		return apperr.Wrap(err, "team member")
	}
	if n == 0 {
		return apperr.NotFoundf("team member not found")
	}
	return nil
}
