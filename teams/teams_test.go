package teams_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/rule"
	"switchboard/ent/teammember"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
	"switchboard/teams"
)

// userOf is the user a member's context acts as.
func userOf(ctx context.Context) uuid.UUID { return viewer.FromContext(ctx).UserID }

func ptr[T any](v T) *T { return &v }

// TestManagesTeam: changing a team and its members needs teams:update or
// a manager seat of that team (access.ManagesTeam); teams:read alone, an
// agent seat, or a manager seat of another team is refused.
func TestManagesTeam(t *testing.T) {
	db := testkit.OpenDB(t)
	s := &teams.Service{Client: db.Client}
	org, _ := testkit.NewOrg(t, db.Client, "acme")
	admin := testkit.NewMember(t, db.Client, org, "Admin", "teams:read", "teams:update")
	manager := testkit.NewMember(t, db.Client, org, "Manager", "teams:read")
	agent := testkit.NewMember(t, db.Client, org, "Agent", "teams:read")
	otherManager := testkit.NewMember(t, db.Client, org, "Other manager", "teams:read")
	managerID, agentID, otherManagerID := userOf(manager), userOf(agent), userOf(otherManager)

	sales, err := s.Create(admin, teams.CreateInput{Name: "Sales"})
	if err != nil {
		t.Fatal(err)
	}
	support, err := s.Create(admin, teams.CreateInput{Name: "Support"})
	if err != nil {
		t.Fatal(err)
	}
	seat := func(team *ent.Team, user uuid.UUID, role teammember.Role) {
		t.Helper()
		if _, err := s.AddMember(admin, team.ID, teams.MemberInput{UserID: user, Role: &role}); err != nil {
			t.Fatal(err)
		}
	}
	seat(sales, managerID, teammember.RoleManager)
	seat(sales, agentID, teammember.RoleAgent)
	seat(support, otherManagerID, teammember.RoleManager)

	const refused = "only an admin or a manager of this team may change it"
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		want    apperr.Code
		message string
	}{
		{"OKAdmin", admin, "", ""},
		{"OKManagerSeat", manager, "", ""},
		{"ErrAgentSeat", agent, apperr.Forbidden, refused},
		{"ErrManagerOfAnotherTeam", otherManager, apperr.Forbidden, refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Update(tc.ctx, sales.ID, teams.UpdateInput{Description: ptr("by " + tc.name)})
			testkit.ExpectError(t, err, tc.want, tc.message)
			_, err = s.AddMember(tc.ctx, sales.ID, teams.MemberInput{UserID: otherManagerID})
			testkit.ExpectError(t, err, tc.want, tc.message)
			testkit.ExpectError(t, s.RemoveMember(tc.ctx, sales.ID, otherManagerID), tc.want, tc.message)
		})
	}
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		other, _ := testkit.NewOrg(t, db.Client, "other")
		theirAdmin := testkit.NewMember(t, db.Client, other, "Their admin", "teams:read", "teams:update")
		_, err := s.Update(theirAdmin, sales.ID, teams.UpdateInput{Name: ptr("Mine")})
		testkit.ExpectError(t, err, apperr.NotFound, "team not found")
		_, err = s.Get(theirAdmin, sales.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "team")
	})
}

// TestTeamRules: the checks of a team's fields and of its members.
func TestTeamRules(t *testing.T) {
	db := testkit.OpenDB(t)
	s := &teams.Service{Client: db.Client}
	org, _ := testkit.NewOrg(t, db.Client, "acme")
	admin := testkit.NewMember(t, db.Client, org, "Admin", "teams:read", "teams:update")
	adminID := userOf(admin)
	team, err := s.Create(admin, teams.CreateInput{Name: "  Sales  ", PerAgentTimeoutSecs: ptr(60)})
	if err != nil {
		t.Fatal(err)
	}
	if team.Name != "Sales" || team.PerAgentTimeoutSecs != 60 || team.Edges.CreatedBy == nil || team.Edges.CreatedBy.ID != adminID {
		t.Fatalf("created %+v", team)
	}
	stranger, err := db.Client.User.Create().SetEmail(uuid.NewString() + "@example.com").
		Save(rule.Bypass(context.Background(), "test fixture"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, message string
		run           func() error
	}{
		{"ErrNameRequired", "name is required", func() error {
			_, err := s.Create(admin, teams.CreateInput{Name: "   "})
			return err
		}},
		{"ErrNameNUL", "name must not contain NUL characters", func() error {
			_, err := s.Create(admin, teams.CreateInput{Name: "a\x00b"})
			return err
		}},
		{"ErrTimeoutNegative", "per_agent_timeout_secs must be between 0 and 86400", func() error {
			_, err := s.Create(admin, teams.CreateInput{Name: "T", PerAgentTimeoutSecs: ptr(-1)})
			return err
		}},
		{"ErrTimeoutOverADay", "per_agent_timeout_secs must be between 0 and 86400", func() error {
			_, err := s.Update(admin, team.ID, teams.UpdateInput{PerAgentTimeoutSecs: ptr(86401)})
			return err
		}},
		{"ErrNameEmptied", "name cannot be empty", func() error {
			_, err := s.Update(admin, team.ID, teams.UpdateInput{Name: ptr(" ")})
			return err
		}},
		{"ErrMemberNotInOrganization", "user_id is not a member of this organization", func() error {
			_, err := s.AddMember(admin, team.ID, teams.MemberInput{UserID: stranger.ID})
			return err
		}},
		{"ErrRemoveNonMember", "team member not found", func() error {
			return s.RemoveMember(admin, team.ID, stranger.ID)
		}},
		{"ErrUnknownTeam", "team not found", func() error {
			_, err := s.Update(admin, uuid.New(), teams.UpdateInput{})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code := apperr.Invalid
			if strings.HasSuffix(tc.message, "not found") {
				code = apperr.NotFound
			}
			testkit.ExpectError(t, tc.run(), code, tc.message)
		})
	}
	t.Run("AddMemberChangesSeat", func(t *testing.T) {
		m, err := s.AddMember(admin, team.ID, teams.MemberInput{UserID: adminID})
		if err != nil || m.Role != teammember.RoleAgent || m.Edges.User == nil {
			t.Fatalf("added %+v, %v", m, err)
		}
		m, err = s.AddMember(admin, team.ID, teams.MemberInput{UserID: adminID, Role: ptr(teammember.RoleManager)})
		if err != nil || m.Role != teammember.RoleManager {
			t.Fatalf("changed %+v, %v", m, err)
		}
		ms, err := s.Members(admin, team.ID)
		if err != nil || len(ms) != 1 {
			t.Fatalf("members %d, %v; want one seat", len(ms), err)
		}
	})
	t.Run("ListCountsMembers", func(t *testing.T) {
		pg, err := s.List(admin, "sal", 0, 10)
		if err != nil || pg.Total != 1 || len(pg.Teams) != 1 {
			t.Fatalf("page %+v, %v", pg, err)
		}
		if pg.MemberCounts[team.ID] != 1 || pg.CreatorNames[team.ID] != "Admin" {
			t.Fatalf("counts %v, creators %v", pg.MemberCounts, pg.CreatorNames)
		}
		counts, err := s.MemberCounts(admin, []uuid.UUID{team.ID, uuid.New()})
		if err != nil || counts[team.ID] != 1 || len(counts) != 1 {
			t.Fatalf("MemberCounts %v, %v", counts, err)
		}
	})
	t.Run("DeleteRemovesTeam", func(t *testing.T) {
		if err := s.Delete(admin, team.ID); err != nil {
			t.Fatal(err)
		}
		_, err := s.Get(admin, team.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "team")
	})
}
