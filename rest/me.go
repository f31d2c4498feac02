package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/people"
	"switchboard/usersettings"
)

// permissionRefJSON is a permission of a user's role.
type permissionRefJSON struct {
	ID       uuid.UUID `json:"id"`
	Resource string    `json:"resource"`
	Action   string    `json:"action"`
}

type userRoleJSON struct {
	ID          uuid.UUID            `json:"id"`
	Name        string               `json:"name"`
	Description string               `json:"description"`
	IsSystem    bool                 `json:"is_system"`
	Permissions *[]permissionRefJSON `json:"permissions,omitempty"`
}

// userJSON is the spec's User as returned by authentication. The signed-in
// user's own answers (login, /api/me) add organization_name and settings.
type userJSON struct {
	ID               uuid.UUID              `json:"id"`
	OrganizationID   uuid.UUID              `json:"organization_id"`
	OrganizationName string                 `json:"organization_name,omitempty"`
	Email            string                 `json:"email" example:"agent@example.com"`
	FullName         string                 `json:"full_name" example:"Ada Agent"`
	RoleID           *uuid.UUID             `json:"role_id"`
	IsActive         bool                   `json:"is_active"`
	IsAvailable      bool                   `json:"is_available"`
	IsSuperAdmin     bool                   `json:"is_super_admin"`
	Settings         *usersettings.Settings `json:"settings,omitempty"`
	CreatedAt        time.Time              `json:"created_at"`
	UpdatedAt        time.Time              `json:"updated_at"`
	Role             *userRoleJSON          `json:"role,omitempty"`
}

func presentUser(u *ent.User, orgID uuid.UUID, r *ent.Role, withPermissions bool) userJSON {
	out := userJSON{
		ID: u.ID, OrganizationID: orgID, Email: u.Email, FullName: u.FullName,
		IsActive: u.IsActive, IsAvailable: u.IsAvailable, IsSuperAdmin: u.IsSuperAdmin,
		CreatedAt: u.CreatedAt, UpdatedAt: u.UpdatedAt,
	}
	if r != nil {
		out.RoleID = &r.ID
		out.Role = &userRoleJSON{ID: r.ID, Name: r.Name, Description: r.Description, IsSystem: r.IsSystem}
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
		out[i] = permissionRefJSON{ID: p.ID, Resource: p.Resource, Action: p.Action}
	}
	return out
}

// presentMe renders the signed-in user as the spec's User with the role's
// permissions, the organization's name and the user's settings. A super
// admin without a role here is shown as an Admin holding every permission
// granted.
func presentMe(me *people.Profile, withPermissions bool) userJSON {
	u := presentUser(me.User, me.Organization.ID, me.Role, withPermissions)
	u.OrganizationName = me.Organization.Name
	u.Settings = me.Settings
	if u.Role == nil && withPermissions {
		ps := presentPermissionRefs(me.GrantedPermissions)
		u.Role = &userRoleJSON{Name: access.RoleAdmin, IsSystem: true, Permissions: &ps}
	}
	return u
}

// myOrganizationJSON is an organization the signed-in user belongs to.
type myOrganizationJSON struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	Name           string    `json:"name"`
	Slug           string    `json:"slug"`
	RoleName       string    `json:"role_name"`
	IsDefault      bool      `json:"is_default"`
}

func presentMyOrganizations(os []*people.MyOrganization) []myOrganizationJSON {
	out := make([]myOrganizationJSON, len(os))
	for i, o := range os {
		out[i] = myOrganizationJSON{OrganizationID: o.Organization.ID, Name: o.Organization.Name,
			Slug: o.Organization.Slug, RoleName: o.RoleName, IsDefault: o.IsDefault}
	}
	return out
}

// viewerContext is the request context acting as the session's viewer
// (after login the request itself carried no credential).
func viewerContext(c *gin.Context, s *access.Session) context.Context {
	return viewer.NewContext(c.Request.Context(), s.Viewer)
}

func (a *API) me(c *gin.Context) (int, any, error) {
	me, err := a.R.People.Profile(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentMe(me, true), nil
}

// currentUser is the user of a session response.
func (a *API) currentUser(ctx context.Context, withPermissions bool) (userJSON, error) {
	me, err := a.R.People.Profile(ctx)
	if err != nil {
		return userJSON{}, err
	}
	return presentMe(me, withPermissions), nil
}

func (a *API) myOrganizations(c *gin.Context) (int, any, error) {
	os, err := a.R.People.MyOrganizations(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, myOrganizationsData{Organizations: presentMyOrganizations(os)}, nil
}

func (a *API) updateMySettings(c *gin.Context) (int, any, error) {
	var b map[string]any
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	changes, err := usersettings.ChangesFromJSON(b)
	if err != nil {
		return 0, nil, err
	}
	s, err := a.R.People.UpdateSettings(ctx(c), changes)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s, nil
}

// mySettingsBody documents updateMySettings' JSON, which the handler reads
// as a map (usersettings.ChangesFromJSON): the settings to change, at
// least one, no other names, no null.
type mySettingsBody struct {
	EmailNotifications bool     `json:"email_notifications,omitempty"`
	NewMessageAlerts   bool     `json:"new_message_alerts,omitempty"`
	CampaignUpdates    bool     `json:"campaign_updates,omitempty"`
	NotificationSound  string   `json:"notification_sound,omitempty" pattern:"^[a-z0-9][a-z0-9_-]{0,63}$" example:"default" description:"The name of a sound the client ships."`
	_                  struct{} `additionalProperties:"false" minProperties:"1"`
}

// setAvailabilityBody is the JSON body of setAvailability.
type setAvailabilityBody struct {
	IsAvailable *bool `json:"is_available" required:"true" nullable:"false"`
}

func (a *API) setAvailability(c *gin.Context) (int, any, error) {
	var b setAvailabilityBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.IsAvailable == nil {
		return 0, nil, apperr.Invalidf("is_available is required")
	}
	if _, err := a.R.People.SetAvailability(ctx(c), *b.IsAvailable); err != nil {
		return 0, nil, err
	}
	u, err := a.currentUser(ctx(c), false)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, u, nil
}

// changePasswordBody is the JSON body of changePassword.
type changePasswordBody struct {
	CurrentPassword *string `json:"current_password" required:"true" nullable:"false"`
	NewPassword     *string `json:"new_password" required:"true" nullable:"false" minLength:"12" description:"At least 12 characters and at most 256 bytes."`
}

func (a *API) changePassword(c *gin.Context) (int, any, error) {
	var b changePasswordBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	switch {
	case b.CurrentPassword == nil:
		return 0, nil, apperr.Invalidf("current_password is required")
	case b.NewPassword == nil:
		return 0, nil, apperr.Invalidf("new_password is required")
	}
	err := a.R.People.ChangePassword(ctx(c), people.ChangePasswordInput{
		CurrentPassword: *b.CurrentPassword, NewPassword: *b.NewPassword,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Password changed"}, nil
}

func (a *API) meRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/me", Op: "viewer", Out: userJSON{}, Handle: a.me},
		{Method: put, Path: "/api/me/availability", Op: "setAvailability", In: setAvailabilityBody{}, Out: userJSON{}, Handle: a.setAvailability},
		{Method: put, Path: "/api/me/password", Op: "changePassword", In: changePasswordBody{}, Out: messageData{}, Handle: a.changePassword},
		{Method: get, Path: "/api/me/organizations", Op: "myOrganizations", Out: myOrganizationsData{}, Handle: a.myOrganizations},
		{Method: put, Path: "/api/me/settings", Op: "updateMySettings", In: mySettingsBody{}, Out: usersettings.Settings{}, Handle: a.updateMySettings},
	}
}
