package people

import (
	"context"
	"sort"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/agentbreak"
	"switchboard/ent/organizationmember"
	"switchboard/ent/permission"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/usersettings"
)

// Profile is the signed-in person as they see themselves: the user, the
// organization they act in, their role there with its permissions, the
// permissions they hold (keys and catalogue entries), their settings, and
// every organization they belong to.
type Profile struct {
	User         *ent.User
	Organization *ent.Organization
	// Role is nil for a super admin without a membership here.
	Role        *ent.Role
	Permissions []string
	// GrantedPermissions are the permissions held here, as catalogue
	// entries (a super admin holds all of them, with or without a role).
	GrantedPermissions []*ent.Permission
	Settings           *usersettings.Settings
	Organizations      []*MyOrganization
}

// MyOrganization is an organization the viewer belongs to, with their
// role's name there and whether it is their default.
type MyOrganization struct {
	Organization *ent.Organization
	RoleName     string
	IsDefault    bool
}

// ChangePasswordInput is the viewer's current password and the new one.
type ChangePasswordInput struct {
	CurrentPassword string
	NewPassword     string
}

// Profile returns the current principal's profile. Errors:
// unauthenticated (no user behind the viewer).
func (s *Service) Profile(ctx context.Context) (*Profile, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, unauthenticated()
	}
	db := s.db(ctx)
	u, err := db.User.Query().Where(user.ID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	org, err := db.Organization.Get(ctx, v.OrgID)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	settings := usersettings.Of(u.Settings)
	me := &Profile{User: u, Organization: org, Permissions: permissionList(v), Settings: &settings}
	if v.RoleID != uuid.Nil {
		me.Role, err = db.Role.Query().Where(role.ID(v.RoleID)).WithPermissions().Only(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "role")
		}
	}
	if me.GrantedPermissions, err = s.grantedPermissions(ctx, me); err != nil {
		return nil, err
	}
	if me.Organizations, err = s.MyOrganizations(ctx); err != nil {
		return nil, err
	}
	return me, nil
}

// grantedPermissions returns the catalogue entries of the viewer's
// permissions: the role's own when they are exactly what the viewer holds,
// else (a super admin, with or without a role here) looked up by key.
func (s *Service) grantedPermissions(ctx context.Context, me *Profile) ([]*ent.Permission, error) {
	if me.Role != nil && len(me.Role.Edges.Permissions) == len(me.Permissions) {
		return me.Role.Edges.Permissions, nil
	}
	all, err := s.db(ctx).Permission.Query().
		Order(ent.Asc(permission.FieldResource), ent.Asc(permission.FieldAction)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "permission")
	}
	held := make(map[string]bool, len(me.Permissions))
	for _, p := range me.Permissions {
		held[p] = true
	}
	out := make([]*ent.Permission, 0, len(me.Permissions))
	for _, p := range all {
		if held[p.Resource+":"+p.Action] {
			out = append(out, p)
		}
	}
	return out, nil
}

func permissionList(v *viewer.Viewer) []string {
	out := make([]string, 0, len(v.Permissions))
	for p, ok := range v.Permissions {
		if ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// MyOrganizations returns every organization the viewer belongs to, oldest
// membership first, with the role there and the default flag. Errors:
// unauthenticated (no user behind the viewer).
func (s *Service) MyOrganizations(ctx context.Context) ([]*MyOrganization, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, unauthenticated()
	}
	// The viewer's own memberships span organizations: a named bypass,
	// filtered to the viewer's user id.
	ms, err := s.db(ctx).OrganizationMember.Query().
		Where(organizationmember.UserID(v.UserID)).
		WithOrganization().WithRole().
		Order(ent.Asc(organizationmember.FieldCreatedAt)).
		All(rule.Bypass(ctx, "listing the viewer's own memberships"))
	if err != nil {
		return nil, apperr.Wrap(err, "membership")
	}
	out := make([]*MyOrganization, 0, len(ms))
	for _, m := range ms {
		mo := &MyOrganization{Organization: m.Edges.Organization, IsDefault: m.IsDefault}
		if m.Edges.Role != nil {
			mo.RoleName = m.Edges.Role.Name
		}
		out = append(out, mo)
	}
	return out, nil
}

// UpdateSettings applies changes to the viewer's own preferences and
// returns the effective settings. Errors: unauthenticated, invalid (see
// usersettings.Changes.Validate).
func (s *Service) UpdateSettings(ctx context.Context, c usersettings.Changes) (*usersettings.Settings, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	_, u, err := s.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	stored := usersettings.Apply(u.Settings, c)
	if err := s.db(ctx).User.UpdateOne(u).SetSettings(stored).Exec(ctx); err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	out := usersettings.Of(stored)
	return &out, nil
}

// SetAvailability sets the viewer's availability. Going unavailable opens
// a break (an AgentBreak from now) in the current organization unless one
// is open there; coming back closes every open break of the viewer. Calling
// it again with the same value changes nothing. Errors: unauthenticated.
func (s *Service) SetAvailability(ctx context.Context, isAvailable bool) (*ent.User, error) {
	v, u, err := s.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if isAvailable {
		err = s.endBreaks(ctx, v.UserID)
	} else {
		err = s.startBreak(ctx, v.UserID)
	}
	if err != nil {
		return nil, err
	}
	if u.IsAvailable == isAvailable {
		return u, nil
	}
	u, err = s.db(ctx).User.UpdateOne(u).SetIsAvailable(isAvailable).Save(ctx)
	return u, apperr.Wrap(err, "user")
}

// endBreaks closes userID's open breaks. Availability is one flag per
// account, while breaks are recorded per organization: coming back ends
// the viewer's open breaks in every organization, whichever one they act
// in now. A named bypass, limited to the viewer's own breaks.
func (s *Service) endBreaks(ctx context.Context, userID uuid.UUID) error {
	_, err := s.db(ctx).AgentBreak.Update().
		Where(agentbreak.UserID(userID), agentbreak.EndedAtIsNil()).
		SetEndedAt(time.Now().UTC()).Save(rule.Bypass(ctx, "closing the viewer's own open breaks in every organization"))
	return apperr.Wrap(err, "break")
}

// startBreak opens a break of userID in the viewer's organization unless
// one is open there.
func (s *Service) startBreak(ctx context.Context, userID uuid.UUID) error {
	db := s.db(ctx)
	open, err := db.AgentBreak.Query().Where(agentbreak.UserID(userID), agentbreak.EndedAtIsNil()).Exist(ctx)
	if err != nil || open {
		return apperr.Wrap(err, "break")
	}
	return apperr.Wrap(db.AgentBreak.Create().SetUserID(userID).SetStartedAt(time.Now().UTC()).Exec(ctx), "break")
}

// ChangePassword replaces the viewer's password after checking the
// current one; the viewer's other sessions end (their open sockets after
// the commit), the one making the change goes on. Errors:
// unauthenticated, forbidden (an API key: a key must not take over its
// owner's account), invalid (current password wrong or not set, new
// password against the policy).
func (s *Service) ChangePassword(ctx context.Context, in ChangePasswordInput) error {
	v, u, err := s.viewerUser(ctx)
	if err != nil {
		return err
	}
	if !access.ActsInPerson(v) {
		return apperr.Forbiddenf("an API key cannot change its owner's password")
	}
	if u.PasswordHash == "" {
		return apperr.Invalidf("this account has no password; it signs in with single sign-on")
	}
	if in.CurrentPassword == "" || !auth.CheckPassword(u.PasswordHash, in.CurrentPassword) {
		return apperr.Invalidf("current password is incorrect")
	}
	hash, err := newPasswordHash(in.NewPassword)
	if err != nil {
		return err
	}
	if err := s.db(ctx).User.UpdateOne(u).SetPasswordHash(hash).Exec(ctx); err != nil {
		return apperr.Wrap(err, "user")
	}
	if err := access.RevokeUserSessions(ctx, s.db(ctx), u.ID, v.SessionID); err != nil {
		return err
	}
	s.Revocations.Publish(ctx, access.EndUserSessions(u.ID, v.SessionID))
	return nil
}

// SSOIdentities lists the viewer's own identity provider links in the
// organization (access.MySSOIdentities).
func (s *Service) SSOIdentities(ctx context.Context) ([]*ent.SSOIdentity, error) {
	return access.MySSOIdentities(ctx, s.db(ctx))
}

// UnlinkSSOIdentity removes one of the viewer's own identity provider
// links. Errors: not_found (unknown, or another person's).
func (s *Service) UnlinkSSOIdentity(ctx context.Context, id uuid.UUID) error {
	return access.UnlinkSSOIdentity(ctx, s.db(ctx), id)
}
