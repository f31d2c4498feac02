package graph

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
	"switchboard/graph/model"
	"switchboard/usersettings"
)

// Viewer returns the current principal: the user, the current organization,
// the role there with its permissions, the permissions granted (as
// catalogue entries), the user's settings, and every organization the user
// belongs to. Errors: unauthenticated (no viewer).
func (r *Resolver) Viewer(ctx context.Context) (*model.Me, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	db := r.db(ctx)
	u, err := db.User.Query().Where(user.ID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	org, err := db.Organization.Get(ctx, v.OrgID)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	settings := usersettings.Of(u.Settings)
	me := &model.Me{User: u, Organization: org, Permissions: permissionList(v), Settings: &settings}
	if v.RoleID != uuid.Nil {
		me.Role, err = db.Role.Query().Where(role.ID(v.RoleID)).WithPermissions().Only(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "role")
		}
	}
	if me.GrantedPermissions, err = r.grantedPermissions(ctx, me); err != nil {
		return nil, err
	}
	if me.Organizations, err = r.MyOrganizations(ctx); err != nil {
		return nil, err
	}
	return me, nil
}

// grantedPermissions returns the catalogue entries of the viewer's
// permissions: the role's own when they are exactly what the viewer holds,
// else (a super admin, with or without a role here) looked up by key.
func (r *Resolver) grantedPermissions(ctx context.Context, me *model.Me) ([]*ent.Permission, error) {
	if me.Role != nil && len(me.Role.Edges.Permissions) == len(me.Permissions) {
		return me.Role.Edges.Permissions, nil
	}
	all, err := r.db(ctx).Permission.Query().
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

// MyOrganizations returns every organization the viewer belongs to, oldest
// membership first, with the role there and the default flag. Errors:
// unauthenticated (no user behind the viewer).
func (r *Resolver) MyOrganizations(ctx context.Context) ([]*model.MyOrganization, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	// The viewer's own memberships span organizations: a named bypass,
	// filtered to the viewer's user id.
	ms, err := r.db(ctx).OrganizationMember.Query().
		Where(organizationmember.UserID(v.UserID)).
		WithOrganization().WithRole().
		Order(ent.Asc(organizationmember.FieldCreatedAt)).
		All(rule.Bypass(ctx, "listing the viewer's own memberships"))
	if err != nil {
		return nil, apperr.Wrap(err, "membership")
	}
	out := make([]*model.MyOrganization, 0, len(ms))
	for _, m := range ms {
		mo := &model.MyOrganization{Organization: m.Edges.Organization, IsDefault: m.IsDefault}
		if m.Edges.Role != nil {
			mo.RoleName = m.Edges.Role.Name
		}
		out = append(out, mo)
	}
	return out, nil
}

// UpdateMySettings applies changes to the viewer's own preferences and
// returns the effective settings. Errors: unauthenticated, invalid (see
// usersettings.Changes.Validate).
func (r *Resolver) UpdateMySettings(ctx context.Context, c usersettings.Changes) (*usersettings.Settings, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	_, u, err := r.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	stored := usersettings.Apply(u.Settings, c)
	if err := r.db(ctx).User.UpdateOne(u).SetSettings(stored).Exec(ctx); err != nil {
		return nil, apperr.Wrap(err, "user")
	}
	s := usersettings.Of(stored)
	return &s, nil
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

// viewerUser returns the viewer's own user. Errors: unauthenticated (no
// user behind the viewer).
func (r *Resolver) viewerUser(ctx context.Context) (*viewer.Viewer, *ent.User, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	u, err := r.db(ctx).User.Get(ctx, v.UserID)
	if err != nil {
		return nil, nil, apperr.Wrap(err, "user")
	}
	return v, u, nil
}

// SetAvailability sets the viewer's availability. Going unavailable opens
// a break (an AgentBreak from now) in the current organization unless one
// is open there; coming back closes every open break of the viewer. Calling
// it again with the same value changes nothing. Errors: unauthenticated.
func (r *Resolver) SetAvailability(ctx context.Context, isAvailable bool) (*ent.User, error) {
	v, u, err := r.viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	db := r.db(ctx)
	now := time.Now().UTC()
	if isAvailable {
		// Availability is one flag per account, while breaks are recorded
		// per organization: coming back ends the viewer's open breaks in
		// every organization, whichever one they act in now. A named
		// bypass, limited to the viewer's own breaks.
		_, err := db.AgentBreak.Update().
			Where(agentbreak.UserID(v.UserID), agentbreak.EndedAtIsNil()).
			SetEndedAt(now).Save(rule.Bypass(ctx, "closing the viewer's own open breaks in every organization"))
		if err != nil {
			return nil, apperr.Wrap(err, "break")
		}
	} else {
		open, err := db.AgentBreak.Query().
			Where(agentbreak.UserID(v.UserID), agentbreak.EndedAtIsNil()).Exist(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "break")
		}
		if !open {
			if err := db.AgentBreak.Create().SetUserID(v.UserID).SetStartedAt(now).Exec(ctx); err != nil {
				return nil, apperr.Wrap(err, "break")
			}
		}
	}
	if u.IsAvailable == isAvailable {
		return u, nil
	}
	u, err = db.User.UpdateOne(u).SetIsAvailable(isAvailable).Save(ctx)
	return u, apperr.Wrap(err, "user")
}

// ChangePassword replaces the viewer's password after checking the
// current one. Errors: unauthenticated, forbidden (an API key: a key must
// not take over its owner's account), invalid (current password wrong or
// not set, new password against the policy).
func (r *Resolver) ChangePassword(ctx context.Context, in model.ChangePasswordInput) error {
	v, u, err := r.viewerUser(ctx)
	if err != nil {
		return err
	}
	if v.APIKeyID != uuid.Nil {
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
	if err := r.db(ctx).User.UpdateOne(u).SetPasswordHash(hash).Exec(ctx); err != nil {
		return apperr.Wrap(err, "user")
	}
	// Other sessions end; the one making the change goes on.
	if err := access.RevokeUserSessions(ctx, r.db(ctx), u.ID, v.SessionID); err != nil {
		return err
	}
	r.Revocations.Publish(ctx, access.EndUserSessions(u.ID, v.SessionID))
	return nil
}

// MySSOIdentities lists the viewer's own identity provider links in the
// organization (access.MySSOIdentities).
func (r *Resolver) MySSOIdentities(ctx context.Context) ([]*ent.SSOIdentity, error) {
	return access.MySSOIdentities(ctx, r.db(ctx))
}

// UnlinkSSOIdentity removes one of the viewer's own identity provider
// links. Errors: not_found (unknown, or another person's).
func (r *Resolver) UnlinkSSOIdentity(ctx context.Context, id uuid.UUID) error {
	return access.UnlinkSSOIdentity(ctx, r.db(ctx), id)
}
