package access

import (
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/viewer"
)

// The membership rules: what an operation on the people of an
// organization (package people) or on its roles (package roles) checks
// beyond its permission in Operations. Each rule is named here, beside the
// permission table, so that no operation decides them by a role's name or
// by hand.

// keySet is a set of "resource:action" keys, as a role grants them.
type keySet map[string]bool

func (k keySet) Can(permission string) bool { return k[permission] }

// IsAdmin reports whether h (a viewer, or a role's keys) holds every
// permission of the Catalogue: a viewer in the Admin role or another Admin
// seat, a super admin, a system actor. Only an Admin grants, takes away or
// takes over an Admin seat, so no role can make its holder more than it
// is.
func IsAdmin(h interface{ Can(string) bool }) bool {
	for _, p := range Catalogue {
		if !h.Can(p.Key()) {
			return false
		}
	}
	return true
}

// IsAdminSeat reports whether a role granting keys is an Admin seat: it
// grants every permission of the Catalogue. The Admin system role is one
// (its permissions cannot change); a custom role granting them all is one
// too. An organization keeps at least one active member in an Admin seat
// (the last-Admin guard of package people).
func IsAdminSeat(keys []string) bool {
	set := make(keySet, len(keys))
	for _, k := range keys {
		set[k] = true
	}
	return IsAdmin(set)
}

// RequireAdminFor allows a change that involves an Admin seat (granting
// one, taking one away, removing or deactivating its holder) only to an
// Admin; what completes "only an Admin can ...". Otherwise a custom role
// holding the users:* permissions could make its holder an Admin.
// Errors: forbidden.
func RequireAdminFor(v *viewer.Viewer, involvesAdminSeat bool, what string) error {
	if involvesAdminSeat && !IsAdmin(v) {
		return apperr.Forbiddenf("only an Admin can %s", what)
	}
	return nil
}

// RequireIdentityOwner allows a change to the account of userID (its
// name, email, password, active flag) only to that person or a super
// admin, signed in: membership in an organization gives no power over a
// person's identity, and an API key none over its owner's. Errors:
// forbidden.
func RequireIdentityOwner(v *viewer.Viewer, userID uuid.UUID) error {
	if v.APIKeyID != uuid.Nil {
		return apperr.Forbiddenf("an API key cannot change a person's name, email, password or active flag")
	}
	if v.SuperAdmin || v.UserID == userID {
		return nil
	}
	return apperr.Forbiddenf("only the person or a super admin can change their name, email, password or active flag; an organization manages the role only")
}

// ActsInPerson reports whether v is a person signed in (not an API key,
// not a system actor): only the person changes their own password,
// decides on invitations addressed to them, or creates an organization
// they then own.
func ActsInPerson(v *viewer.Viewer) bool {
	return v != nil && v.UserID != uuid.Nil && v.APIKeyID == uuid.Nil
}

// ManagesAccounts reports whether v manages people's accounts across
// organizations (a super admin): it sets another person's password when
// creating their account, and adds an existing account to an organization
// at once. Anyone else invites, and the person decides.
func ManagesAccounts(v *viewer.Viewer) bool { return v != nil && v.SuperAdmin }
