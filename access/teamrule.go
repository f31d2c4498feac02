package access

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/teammember"
	"switchboard/ent/viewer"
)

// ManageTeamsPermission manages every team of the organization (Admin).
const ManageTeamsPermission = "teams:update"

// ManagesTeam is the membership rule of changing a team and its members
// (update, add and remove members): the viewer holds teams:update, or a
// manager seat of that team. Members who only read teams (Agents, and
// Managers without a manager seat of the team) are refused.
var ManagesTeam = Rule{
	Name:     "managesTeam",
	Requires: ManageTeamsPermission + " or a manager seat of the team",
}

// CheckManagesTeam applies ManagesTeam to v and the team teamID, which the
// caller has found in v's organization. Errors: forbidden.
func CheckManagesTeam(ctx context.Context, db *ent.Client, v *viewer.Viewer, teamID uuid.UUID) error {
	if v.Can(ManageTeamsPermission) {
		return nil
	}
	manager, err := db.TeamMember.Query().Where(teammember.TeamID(teamID),
		teammember.UserID(v.UserID), teammember.RoleEQ(teammember.RoleManager)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "team")
	}
	if !manager {
		return apperr.Forbiddenf("only an admin or a manager of this team may change it")
	}
	return nil
}
