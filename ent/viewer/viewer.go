// Package viewer describes who is asking: the principal of a request or task,
// carried in its context and read by the privacy rules of the data layer.
package viewer

import (
	"context"

	"github.com/google/uuid"
)

// Viewer is the principal a request or task runs as.
type Viewer struct {
	// UserID is the acting user; for an API key, the key's creator.
	UserID uuid.UUID
	// OrgID is the organization the viewer acts in; every tenant-owned
	// query is filtered by it.
	OrgID uuid.UUID
	// RoleID is the viewer's role in OrgID.
	RoleID uuid.UUID
	// RoleName is the name of that role (Admin, Manager, Agent or custom).
	RoleName string
	// Permissions holds "resource:action" keys granted by the role.
	Permissions map[string]bool
	// SuperAdmin marks a platform-wide administrator.
	SuperAdmin bool
	// APIKeyID is set when the request authenticated with an API key.
	APIKeyID uuid.UUID
	// SessionID is the token family of the session the request came
	// with (access tokens only).
	SessionID uuid.UUID
	// System marks an internal actor (worker, bootstrap) bound to OrgID
	// with every permission.
	System bool
}

type ctxKey struct{}

// NewContext returns a copy of ctx carrying v.
func NewContext(ctx context.Context, v *Viewer) context.Context {
	return context.WithValue(ctx, ctxKey{}, v)
}

// FromContext returns the viewer of ctx, or nil when there is none.
func FromContext(ctx context.Context) *Viewer {
	v, _ := ctx.Value(ctxKey{}).(*Viewer)
	return v
}

// SystemContext returns ctx carrying a system viewer bound to orgID.
// Workers and bootstrap code use it to act inside one organization.
func SystemContext(ctx context.Context, orgID uuid.UUID) context.Context {
	return NewContext(ctx, &Viewer{OrgID: orgID, System: true})
}

// Can reports whether the viewer holds the permission "resource:action".
func (v *Viewer) Can(permission string) bool {
	if v == nil {
		return false
	}
	return v.System || v.Permissions[permission]
}

// HasOrg reports whether the viewer is bound to an organization.
func (v *Viewer) HasOrg() bool {
	return v != nil && v.OrgID != uuid.Nil
}
