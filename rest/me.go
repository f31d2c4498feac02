package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

type permissionRefJSON struct {
	Resource string `json:"resource"`
	Action   string `json:"action"`
}

type userRoleJSON struct {
	ID          uuid.UUID            `json:"id"`
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Permissions *[]permissionRefJSON `json:"permissions,omitempty"`
}

// userJSON is the spec's User as returned by authentication.
type userJSON struct {
	ID             uuid.UUID     `json:"id"`
	OrganizationID uuid.UUID     `json:"organization_id"`
	Email          string        `json:"email"`
	FullName       string        `json:"full_name"`
	RoleID         *uuid.UUID    `json:"role_id"`
	IsActive       bool          `json:"is_active"`
	IsAvailable    bool          `json:"is_available"`
	IsSuperAdmin   bool          `json:"is_super_admin"`
	CreatedAt      time.Time     `json:"created_at"`
	UpdatedAt      time.Time     `json:"updated_at"`
	Role           *userRoleJSON `json:"role,omitempty"`
}

func presentUser(u *ent.User, orgID uuid.UUID, r *ent.Role, withPermissions bool) userJSON {
	out := userJSON{
		ID: u.ID, OrganizationID: orgID, Email: u.Email, FullName: u.FullName,
		IsActive: u.IsActive, IsAvailable: u.IsAvailable, IsSuperAdmin: u.IsSuperAdmin,
		CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
	}
	if r != nil {
		out.RoleID = &r.ID
		out.Role = &userRoleJSON{ID: r.ID, Name: r.Name, Description: r.Description}
		if withPermissions {
			ps := presentPermissionRefs(r.Edges.Permissions)
			out.Role.Permissions = &ps
		}
	}
	return out
}

func presentPermissionRefs(ps []*ent.Permission) []permissionRefJSON {
	out := make([]permissionRefJSON, len(ps))
	for i, p := range ps {
		out[i] = permissionRefJSON{Resource: p.Resource, Action: p.Action}
	}
	return out
}

// permissionRefsFromKeys renders "resource:action" keys; a super admin
// without a role there still sees what they may do.
func permissionRefsFromKeys(keys []string) []permissionRefJSON {
	out := make([]permissionRefJSON, 0, len(keys))
	for _, k := range keys {
		res, act, _ := strings.Cut(k, ":")
		out = append(out, permissionRefJSON{Resource: res, Action: act})
	}
	return out
}

type myOrgJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	RoleName  string    `json:"role_name"`
	IsDefault bool      `json:"is_default"`
}

func presentMe(me *model.Me) gin.H {
	u := presentUser(me.User, me.Organization.ID, me.Role, true)
	if u.Role == nil {
		ps := permissionRefsFromKeys(me.Permissions)
		u.Role = &userRoleJSON{Name: access.RoleAdmin, Permissions: &ps}
	}
	orgs := make([]myOrgJSON, 0, len(me.Organizations))
	for _, o := range me.Organizations {
		orgs = append(orgs, myOrgJSON{ID: o.Organization.ID, Name: o.Organization.Name,
			Slug: o.Organization.Slug, RoleName: o.RoleName, IsDefault: o.IsDefault})
	}
	out := gin.H{}
	out["user"] = u
	out["organization"] = presentOrganization(me.Organization)
	out["permissions"] = me.Permissions
	out["organizations"] = orgs
	return out
}

// viewerContext is the request context acting as the session's viewer
// (after login the request itself carried no credential).
func viewerContext(c *gin.Context, s *access.Session) context.Context {
	return viewer.NewContext(c.Request.Context(), s.Viewer)
}

func (a *API) me(c *gin.Context) (int, any, error) {
	me, err := a.R.Viewer(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentMe(me), nil
}

// currentUserJSON is the user of a session response.
func (a *API) currentUser(ctx context.Context, withPermissions bool) (userJSON, error) {
	me, err := a.R.Viewer(ctx)
	if err != nil {
		return userJSON{}, err
	}
	u := presentUser(me.User, me.Organization.ID, me.Role, withPermissions)
	if u.Role == nil && withPermissions {
		ps := permissionRefsFromKeys(me.Permissions)
		u.Role = &userRoleJSON{Name: access.RoleAdmin, Permissions: &ps}
	}
	return u, nil
}

func (a *API) setAvailability(c *gin.Context) (int, any, error) {
	var b struct {
		IsAvailable *bool `json:"is_available"`
	}
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.IsAvailable == nil {
		return 0, nil, apperr.Invalidf("is_available is required")
	}
	if _, err := a.R.SetAvailability(ctx(c), *b.IsAvailable); err != nil {
		return 0, nil, err
	}
	u, err := a.currentUser(ctx(c), false)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, u, nil
}

func (a *API) changePassword(c *gin.Context) (int, any, error) {
	var b struct {
		CurrentPassword *string `json:"current_password"`
		NewPassword     *string `json:"new_password"`
	}
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	switch {
	case b.CurrentPassword == nil:
		return 0, nil, apperr.Invalidf("current_password is required")
	case b.NewPassword == nil:
		return 0, nil, apperr.Invalidf("new_password is required")
	}
	err := a.R.ChangePassword(ctx(c), model.ChangePasswordInput{
		CurrentPassword: *b.CurrentPassword, NewPassword: *b.NewPassword,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, gin.H{"message": "Password changed"}, nil
}

func (a *API) meRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/me", Op: "viewer", Handle: a.me},
		{Method: put, Path: "/api/me/availability", Op: "setAvailability", Handle: a.setAvailability},
		{Method: put, Path: "/api/me/password", Op: "changePassword", Handle: a.changePassword},
	}
}
