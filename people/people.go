// Package people owns the people of an organization and the signed-in
// person's own account: users as members of the viewer's organization
// (their role there, their identity, which only they or a super admin
// change), memberships (adding, changing the role, removing, and the
// last-Admin guard: an organization keeps an active member in an Admin
// seat), invitations (made, refreshed, accepted, declined; registration
// consuming one stays in package access), organizations (listing, the
// current one, creating one), and the viewer's profile, availability,
// password and settings. The membership rules it applies are named in
// package access (access/membership.go); what a role grants is package
// roles'. It does not issue sessions or check credentials (package
// access), and must not import the transports (rest/, graph/).
// Transports call its Service.
package people

import (
	"context"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/roles"
)

// Service is the people operations.
type Service struct {
	Client *ent.Client
	// Roles finds the role a member gets and tells which roles are Admin
	// seats.
	Roles *roles.Service
	// Revocations ends, once the change commits, the open sockets whose
	// access a change took away (a role changed, a membership removed, a
	// password reset, an account deactivated).
	Revocations *access.Revocations
}

// Addition tells what adding a person did: a membership (with its user
// and role), or an invitation the person accepts or registers with.
type Addition struct {
	Member     *ent.OrganizationMember
	Invitation *ent.Invitation
}

// db returns the transaction's client when ctx carries one, the root
// client otherwise.
func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// viewerUser returns the viewer and its own user. Errors: unauthenticated
// (no user behind the viewer).
func (s *Service) viewerUser(ctx context.Context) (*viewer.Viewer, *ent.User, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, nil, unauthenticated()
	}
	u, err := s.db(ctx).User.Get(ctx, v.UserID)
	if err != nil {
		return nil, nil, apperr.Wrap(err, "user")
	}
	return v, u, nil
}

// unauthenticated answers an operation on one's own account without a
// person behind the viewer.
func unauthenticated() error { return apperr.New(apperr.Unauthenticated, "authentication required") }
