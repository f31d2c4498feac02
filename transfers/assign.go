package transfers

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agentbreak"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/organizationmember"
	"switchboard/ent/team"
	"switchboard/ent/teammember"
	"switchboard/ent/user"
)

// This file holds the choice of an agent: the same-agent rule, the team's
// strategies and who is available.

// chooseAgent applies assign_to_same_agent and the team's strategy; nil
// leaves the transfer in its queue. It stamps last_assigned_at on the
// chosen member's seat in the team.
func (s *Service) chooseAgent(ctx context.Context, db *ent.Client, st settings, contactID uuid.UUID, tm *ent.Team) (*uuid.UUID, error) {
	if st.sameAgent {
		prev, err := db.AgentTransfer.Query().
			Where(agenttransfer.ContactID(contactID), agenttransfer.AgentIDNotNil()).
			Order(ent.Desc(agenttransfer.FieldTransferredAt), ent.Desc(agenttransfer.FieldID)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, apperr.Wrap(err, "transfer")
		}
		if prev != nil {
			ok, err := s.available(ctx, db, []uuid.UUID{*prev.AgentID})
			if err != nil {
				return nil, err
			}
			if len(ok) == 1 && (tm == nil || s.isTeamMember(ctx, db, tm.ID, *prev.AgentID)) {
				if tm != nil {
					if err := s.stamp(ctx, db, tm.ID, *prev.AgentID); err != nil {
						return nil, err
					}
				}
				return prev.AgentID, nil
			}
		}
	}
	if tm == nil || tm.AssignmentStrategy == team.AssignmentStrategyManual {
		return nil, nil
	}
	return s.teamPick(ctx, db, tm, uuid.Nil)
}

// teamPick applies the team's strategy among its available members other
// than exclude; nil when nobody fits.
func (s *Service) teamPick(ctx context.Context, db *ent.Client, tm *ent.Team, exclude uuid.UUID) (*uuid.UUID, error) {
	// The team's seats are locked (PostgreSQL) so that concurrent
	// creations for one team take turns: round robin stays fair and load
	// counts include the previous assignment.
	seats, err := db.TeamMember.Query().Where(teammember.TeamID(tm.ID), database.Locked()).
		Order(ent.Asc(teammember.FieldID)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team member")
	}
	ids := make([]uuid.UUID, len(seats))
	for i, m := range seats {
		ids[i] = m.UserID
	}
	ok, err := s.available(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	var load map[uuid.UUID]int
	if tm.AssignmentStrategy == team.AssignmentStrategyLoadBalanced {
		if load, err = s.activeLoad(ctx, db, ids); err != nil {
			return nil, err
		}
	}
	var best *ent.TeamMember
	for _, m := range seats {
		if !ok[m.UserID] || m.UserID == exclude {
			continue
		}
		if best == nil || before(m, best, load) {
			best = m
		}
	}
	if best == nil {
		return nil, nil
	}
	if err := db.TeamMember.UpdateOne(best).SetLastAssignedAt(s.now()).Exec(ctx); err != nil {
		return nil, apperr.Wrap(err, "team member")
	}
	return &best.UserID, nil
}

// before orders seats for assignment: fewest active transfers (when load
// is counted), then least recently assigned (never first), then user id.
func before(a, b *ent.TeamMember, load map[uuid.UUID]int) bool {
	if load != nil && load[a.UserID] != load[b.UserID] {
		return load[a.UserID] < load[b.UserID]
	}
	switch {
	case a.LastAssignedAt == nil && b.LastAssignedAt != nil:
		return true
	case a.LastAssignedAt != nil && b.LastAssignedAt == nil:
		return false
	case a.LastAssignedAt != nil && !a.LastAssignedAt.Equal(*b.LastAssignedAt):
		return a.LastAssignedAt.Before(*b.LastAssignedAt)
	}
	return a.UserID.String() < b.UserID.String()
}

func (s *Service) activeLoad(ctx context.Context, db *ent.Client, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []struct {
		AgentID uuid.UUID `json:"agent_id"`
		Count   int       `json:"count"`
	}
	err := db.AgentTransfer.Query().
		Where(agenttransfer.StatusEQ(agenttransfer.StatusActive), agenttransfer.AgentIDIn(ids...)).
		GroupBy(agenttransfer.FieldAgentID).Aggregate(ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	out := make(map[uuid.UUID]int, len(rows))
	for _, r := range rows {
		out[r.AgentID] = r.Count
	}
	return out, nil
}

func (s *Service) stamp(ctx context.Context, db *ent.Client, teamID, userID uuid.UUID) error {
	_, err := db.TeamMember.Update().Where(teammember.TeamID(teamID), teammember.UserID(userID)).
		SetLastAssignedAt(s.now()).Save(ctx)
	return apperr.Wrap(err, "team member")
}

// available returns which of the users are members of the organization,
// active, marked available and not on an open break in it.
func (s *Service) available(ctx context.Context, db *ent.Client, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	out := map[uuid.UUID]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	members, err := db.OrganizationMember.Query().Where(organizationmember.UserIDIn(ids...)).
		Select(organizationmember.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	inOrg := make([]uuid.UUID, 0, len(members))
	for _, m := range members {
		if id, err := uuid.Parse(m); err == nil {
			inOrg = append(inOrg, id)
		}
	}
	if len(inOrg) == 0 {
		return out, nil
	}
	users, err := db.User.Query().Where(user.IDIn(inOrg...), user.IsActive(true), user.IsAvailable(true)).IDs(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	for _, id := range users {
		out[id] = true
	}
	onBreak, err := db.AgentBreak.Query().Where(agentbreak.UserIDIn(users...), agentbreak.EndedAtIsNil()).
		Select(agentbreak.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "break")
	}
	for _, b := range onBreak {
		if id, err := uuid.Parse(b); err == nil {
			delete(out, id)
		}
	}
	return out, nil
}
