package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"switchboard/apperr"
	"switchboard/ent/team"
	"switchboard/ent/teammember"
	"switchboard/teams"
)

// createTeamBody is the JSON of createTeam; the bound is teams'
// (TestBodyTagsMatchTheDomain).
type createTeamBody struct {
	Name                *string `json:"name" required:"true" nullable:"false" minLength:"1" example:"Billing" description:"At most 100 bytes."`
	Description         *string `json:"description" description:"At most 1000 bytes."`
	AssignmentStrategy  *string `json:"assignment_strategy" enum:"round_robin,load_balanced,manual" description:"Default round_robin."`
	PerAgentTimeoutSecs *int    `json:"per_agent_timeout_secs" minimum:"0" maximum:"86400" description:"Default 120."`
	IsActive            *bool   `json:"is_active" description:"Default true."`
}

func (b createTeamBody) strategy() (*team.AssignmentStrategy, error) {
	return updateTeamBody(b).strategy()
}

// updateTeamBody is the JSON of updateTeam: absent or null fields keep their
// value.
type updateTeamBody struct {
	Name                *string `json:"name" minLength:"1" description:"At most 100 bytes."`
	Description         *string `json:"description" description:"At most 1000 bytes."`
	AssignmentStrategy  *string `json:"assignment_strategy" enum:"round_robin,load_balanced,manual"`
	PerAgentTimeoutSecs *int    `json:"per_agent_timeout_secs" minimum:"0" maximum:"86400"`
	IsActive            *bool   `json:"is_active"`
}

func (b updateTeamBody) strategy() (*team.AssignmentStrategy, error) {
	if b.AssignmentStrategy == nil {
		return nil, nil
	}
	s := team.AssignmentStrategy(*b.AssignmentStrategy)
	if err := team.AssignmentStrategyValidator(s); err != nil {
		return nil, apperr.Invalidf("assignment_strategy must be one of round_robin, load_balanced, manual")
	}
	return &s, nil
}

func (a *API) listTeams(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Teams.List(ctx(c), queryOf[searchQuery](c).Search, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]teamJSON, len(pg.Teams))
	for i, t := range pg.Teams {
		out[i] = presentTeam(t, pg.MemberCounts[t.ID], false)
		out[i].CreatedByName = pg.CreatorNames[t.ID]
	}
	return http.StatusOK, listPayload("teams", out, pg.Total, p), nil
}

func (a *API) getTeam(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	t, err := a.R.Teams.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, teamData{Team: presentTeam(t, 0, true)}, nil
}

func (a *API) createTeam(c *gin.Context) (int, any, error) {
	var b createTeamBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	strategy, err := b.strategy()
	if err != nil {
		return 0, nil, err
	}
	if b.Name == nil {
		return 0, nil, apperr.Invalidf("name is required")
	}
	t, err := a.R.Teams.Create(ctx(c), teams.CreateInput{
		Name: *b.Name, Description: b.Description, AssignmentStrategy: strategy,
		PerAgentTimeoutSecs: b.PerAgentTimeoutSecs, IsActive: b.IsActive,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, teamData{Team: presentTeam(t, 0, true)}, nil
}

func (a *API) updateTeam(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateTeamBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	strategy, err := b.strategy()
	if err != nil {
		return 0, nil, err
	}
	t, err := a.R.Teams.Update(ctx(c), id, teams.UpdateInput{
		Name: b.Name, Description: b.Description, AssignmentStrategy: strategy,
		PerAgentTimeoutSecs: b.PerAgentTimeoutSecs, IsActive: b.IsActive,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, teamData{Team: presentTeam(t, 0, true)}, nil
}

func (a *API) listTeamMembers(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	ms, err := a.R.Teams.Members(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	out := make([]teamMemberJSON, len(ms))
	for i, m := range ms {
		out[i] = presentTeamMember(m)
	}
	return http.StatusOK, teamMembersData{Members: out}, nil
}

// addTeamMemberBody is the JSON body of addTeamMember.
type addTeamMemberBody struct {
	UserID string  `json:"user_id" required:"true" format:"uuid" description:"A member of the organization."`
	Role   *string `json:"role" enum:"manager,agent" description:"Default agent."`
}

func (a *API) addTeamMember(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b addTeamMemberBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	uid, err := optionalUUID("user_id", b.UserID)
	if err != nil {
		return 0, nil, err
	}
	if uid == nil {
		return 0, nil, apperr.Invalidf("user_id is required")
	}
	in := teams.MemberInput{UserID: *uid}
	if b.Role != nil {
		r := teammember.Role(*b.Role)
		if teammember.RoleValidator(r) != nil {
			return 0, nil, apperr.Invalidf("role must be manager or agent")
		}
		in.Role = &r
	}
	m, err := a.R.Teams.AddMember(ctx(c), id, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, teamMemberData{Member: presentTeamMember(m)}, nil
}

func (a *API) removeTeamMember(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	uid, err := pathUUID(c, "user_id")
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Teams.RemoveMember(ctx(c), id, uid); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Member removed"}, nil
}

func (a *API) deleteTeam(c *gin.Context) (int, any, error) {
	return idAction(a.R.Teams.Delete, messageData{Message: "Team deleted"})(c)
}

// teamRoutes: update and member changes need an admin or the team's
// manager (the rule access.ManagesTeam, applied by the operation); create
// and delete need an admin.
func (a *API) teamRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/teams", Op: "teams", Query: paged(50, searchQuery{}), Out: list("teams", teamJSON{}), Handle: a.listTeams},
		{Method: post, Path: "/api/teams", Op: "createTeam", Status: http.StatusCreated, In: createTeamBody{}, Out: teamData{}, Handle: a.createTeam},
		{Method: get, Path: "/api/teams/:id", Op: "team", Out: teamData{}, Handle: a.getTeam},
		{Method: put, Path: "/api/teams/:id", Op: "updateTeam", In: updateTeamBody{}, Out: teamData{}, Handle: a.updateTeam},
		{Method: del, Path: "/api/teams/:id", Op: "deleteTeam", Out: messageData{}, Handle: a.deleteTeam},
		{Method: get, Path: "/api/teams/:id/members", Op: "teamMembers", Out: teamMembersData{}, Handle: a.listTeamMembers},
		{Method: post, Path: "/api/teams/:id/members", Op: "addTeamMember", Status: http.StatusCreated, In: addTeamMemberBody{}, Out: teamMemberData{}, Handle: a.addTeamMember},
		{Method: del, Path: "/api/teams/:id/members/:user_id", Op: "removeTeamMember", Out: messageData{}, Handle: a.removeTeamMember},
	}
}
