package rest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/roles"
)

// permissionJSON is the spec's Permission.
type permissionJSON struct {
	ID          uuid.UUID `json:"id"`
	Resource    string    `json:"resource"`
	Action      string    `json:"action"`
	Description string    `json:"description"`
}

func presentPermissions(ps []*ent.Permission) []permissionJSON {
	out := make([]permissionJSON, len(ps))
	for i, p := range ps {
		out[i] = permissionJSON{ID: p.ID, Resource: p.Resource, Action: p.Action, Description: p.Description}
	}
	return out
}

// roleJSON is the spec's Role: permissions in single reads and writes,
// the count everywhere.
type roleJSON struct {
	ID              uuid.UUID         `json:"id"`
	Name            string            `json:"name"`
	Description     string            `json:"description"`
	IsSystem        bool              `json:"is_system"`
	IsDefault       bool              `json:"is_default"`
	PermissionCount int               `json:"permission_count"`
	Permissions     *[]permissionJSON `json:"permissions,omitempty"`
	// UserCount is how many members of the organization hold the role
	// (the web client's users column; the spec is silent on it).
	UserCount int       `json:"user_count"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// presentRole renders a role; with withPermissions, its loaded permissions
// (and their count).
func presentRole(r *ent.Role, permissionCount, userCount int, withPermissions bool) roleJSON {
	out := roleJSON{
		ID: r.ID, Name: r.Name, Description: r.Description, IsSystem: r.IsSystem,
		IsDefault: r.IsDefault, PermissionCount: permissionCount, UserCount: userCount,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if withPermissions {
		ps := presentPermissions(r.Edges.Permissions)
		out.Permissions = &ps
		out.PermissionCount = len(ps)
	}
	return out
}

// presentRoles renders roles with their member counts, and either their
// loaded permissions (withPermissions) or their permission counts; a
// fixed number of queries whatever the number of roles.
func (a *API) presentRoles(c *gin.Context, rs []*ent.Role, withPermissions bool) ([]roleJSON, error) {
	ids := make([]uuid.UUID, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	users, err := a.R.Roles.UserCounts(ctx(c), ids)
	if err != nil {
		return nil, err
	}
	var perms map[uuid.UUID]int
	if !withPermissions {
		if perms, err = a.R.Roles.PermissionCounts(ctx(c), ids); err != nil {
			return nil, err
		}
	}
	out := make([]roleJSON, len(rs))
	for i, r := range rs {
		out[i] = presentRole(r, perms[r.ID], users[r.ID], withPermissions)
	}
	return out, nil
}

// roleAnswer is the answer of a single-role operation: the role with its
// permissions.
func (a *API) roleAnswer(c *gin.Context, status int, r *ent.Role) (int, any, error) {
	out, err := a.presentRoles(c, []*ent.Role{r}, true)
	if err != nil {
		return 0, nil, err
	}
	return status, out[0], nil
}

// createRoleBody is the JSON of createRole; the bounds are roles'
// (TestBodyTagsMatchTheDomain).
type createRoleBody struct {
	Name        *string        `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"100" example:"Supervisor" description:"Unique in the organization."`
	Description *string        `json:"description" maxLength:"500"`
	Permissions permissionKeys `json:"permissions" required:"true" description:"Keys from GET /api/permissions; may be empty."`
	IsDefault   *bool          `json:"is_default"`
}

// updateRoleBody is the JSON of updateRole: absent or null fields keep their
// value. Permissions stays nil when the field is absent, so an update can
// tell "keep" from "none".
type updateRoleBody struct {
	Name        *string        `json:"name" minLength:"1" maxLength:"100" description:"A system role keeps its name."`
	Description *string        `json:"description" maxLength:"500"`
	Permissions permissionKeys `json:"permissions" description:"Replaces the permissions: keys from GET /api/permissions."`
	IsDefault   *bool          `json:"is_default"`
}

// permissionKeys are a role's permissions as written: "resource:action"
// keys, or the permission objects ({resource, action}) a role is read with,
// which clients send back as they got them.
type permissionKeys []string

// UnmarshalJSON implements json.Unmarshaler.
func (k *permissionKeys) UnmarshalJSON(b []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return apperr.Invalidf("permissions must be an array of resource:action keys or {resource, action} objects")
	}
	if items == nil {
		return nil
	}
	out := make(permissionKeys, 0, len(items))
	for _, raw := range items {
		var key string
		if json.Unmarshal(raw, &key) == nil {
			out = append(out, key)
			continue
		}
		var p struct{ Resource, Action string }
		if err := json.Unmarshal(raw, &p); err != nil || p.Resource == "" || p.Action == "" {
			return apperr.Invalidf("permissions must be an array of resource:action keys or {resource, action} objects")
		}
		out = append(out, p.Resource+":"+p.Action)
	}
	*k = out
	return nil
}

func (a *API) listPermissions(c *gin.Context) (int, any, error) {
	ps, err := a.R.Roles.Permissions(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, permissionsData{Permissions: presentPermissions(ps)}, nil
}

func (a *API) listRoles(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	rs, total, err := a.R.Roles.List(ctx(c), queryOf[searchQuery](c).Search, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	// The spec lists permission_count; the peer web client also reads
	// each role's permissions in its list.
	out, err := a.presentRoles(c, rs, true)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, listPayload("roles", out, total, p), nil
}

func (a *API) getRole(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	r, err := a.R.Roles.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return a.roleAnswer(c, http.StatusOK, r)
}

func (a *API) createRole(c *gin.Context) (int, any, error) {
	var b createRoleBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Name == nil {
		return 0, nil, apperr.Invalidf("name is required")
	}
	if b.Permissions == nil {
		return 0, nil, apperr.Invalidf("permissions is required (an array of resource:action keys)")
	}
	r, err := a.R.Roles.Create(ctx(c), roles.CreateInput{
		Name: *b.Name, Description: b.Description, Permissions: b.Permissions, IsDefault: b.IsDefault,
	})
	if err != nil {
		return 0, nil, err
	}
	return a.roleAnswer(c, http.StatusCreated, r)
}

func (a *API) updateRole(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateRoleBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	r, err := a.R.Roles.Update(ctx(c), id, roles.UpdateInput{
		Name: b.Name, Description: b.Description, Permissions: b.Permissions, IsDefault: b.IsDefault,
	})
	if err != nil {
		return 0, nil, err
	}
	return a.roleAnswer(c, http.StatusOK, r)
}

func (a *API) deleteRole(c *gin.Context) (int, any, error) {
	return idAction(a.R.Roles.Delete, messageData{Message: "Role deleted"})(c)
}

// roleRoutes: the permission catalogue is read with roles:read, since it is
// what a role editor picks from.
func (a *API) roleRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/permissions", Op: "permissions", Out: permissionsData{}, Handle: a.listPermissions},
		{Method: get, Path: "/api/roles", Op: "roles", Query: paged(50, searchQuery{}), Out: list("roles", roleJSON{}), Handle: a.listRoles},
		{Method: post, Path: "/api/roles", Op: "createRole", Status: http.StatusCreated, In: createRoleBody{}, Out: roleJSON{}, Handle: a.createRole},
		{Method: get, Path: "/api/roles/:id", Op: "role", Out: roleJSON{}, Handle: a.getRole},
		{Method: put, Path: "/api/roles/:id", Op: "updateRole", In: updateRoleBody{}, Out: roleJSON{}, Handle: a.updateRole},
		{Method: del, Path: "/api/roles/:id", Op: "deleteRole", Out: messageData{}, Handle: a.deleteRole},
	}
}
