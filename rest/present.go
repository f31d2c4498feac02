package rest

import (
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
)

// Presenters: the spec's JSON shapes, snake_case, independent of ent's
// struct tags.

type teamMemberJSON struct {
	ID             uuid.UUID  `json:"id"`
	UserID         uuid.UUID  `json:"user_id"`
	FullName       string     `json:"full_name"`
	Email          string     `json:"email"`
	Role           string     `json:"role"`
	IsAvailable    bool       `json:"is_available"`
	LastAssignedAt *time.Time `json:"last_assigned_at"`
}

func presentTeamMember(m *ent.TeamMember) teamMemberJSON {
	out := teamMemberJSON{ID: m.ID, UserID: m.UserID, Role: string(m.Role), LastAssignedAt: m.LastAssignedAt}
	if u := m.Edges.User; u != nil {
		out.FullName, out.Email, out.IsAvailable = u.FullName, u.Email, u.IsAvailable
	}
	return out
}

type teamJSON struct {
	ID                  uuid.UUID         `json:"id"`
	Name                string            `json:"name"`
	Description         string            `json:"description"`
	AssignmentStrategy  string            `json:"assignment_strategy"`
	PerAgentTimeoutSecs int               `json:"per_agent_timeout_secs"`
	IsActive            bool              `json:"is_active"`
	MemberCount         int               `json:"member_count"`
	Members             *[]teamMemberJSON `json:"members,omitempty"`
	CreatedByID         *uuid.UUID        `json:"created_by_id"`
	CreatedByName       string            `json:"created_by_name"`
	CreatedAt           time.Time         `json:"created_at"`
	UpdatedAt           time.Time         `json:"updated_at"`
}

// presentTeam renders a team; with members loaded it includes them.
func presentTeam(t *ent.Team, memberCount int, withMembers bool) teamJSON {
	out := teamJSON{
		ID: t.ID, Name: t.Name, Description: t.Description,
		AssignmentStrategy: string(t.AssignmentStrategy), PerAgentTimeoutSecs: t.PerAgentTimeoutSecs,
		IsActive: t.IsActive, MemberCount: memberCount, CreatedByID: t.CreatedByID,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
	if u := t.Edges.CreatedBy; u != nil {
		out.CreatedByName = u.FullName
	}
	if withMembers {
		ms := make([]teamMemberJSON, 0, len(t.Edges.Members))
		for _, m := range t.Edges.Members {
			ms = append(ms, presentTeamMember(m))
		}
		out.Members = &ms
		out.MemberCount = len(ms)
	}
	return out
}
