package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/people"
)

// pendingInvitationJSON is an invitation addressed to the signed-in person.
type pendingInvitationJSON struct {
	ID               uuid.UUID `json:"id"`
	OrganizationID   uuid.UUID `json:"organization_id"`
	OrganizationName string    `json:"organization_name"`
	RoleName         string    `json:"role_name"`
	ExpiresAt        time.Time `json:"expires_at"`
	CreatedAt        time.Time `json:"created_at"`
}

func (a *API) myInvitations(c *gin.Context) (int, any, error) {
	invs, err := a.R.People.MyInvitations(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	out := make([]pendingInvitationJSON, len(invs))
	for i, inv := range invs {
		out[i] = presentPendingInvitation(inv)
	}
	return http.StatusOK, invitationsData{Invitations: out}, nil
}

func presentPendingInvitation(inv *people.PendingInvitation) pendingInvitationJSON {
	return pendingInvitationJSON{
		ID: inv.ID, OrganizationID: inv.OrganizationID, OrganizationName: inv.OrganizationName,
		RoleName: inv.RoleName, ExpiresAt: inv.ExpiresAt, CreatedAt: inv.CreatedAt,
	}
}

func (a *API) acceptInvitation(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	o, err := a.R.People.AcceptInvitation(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, joinedData{Message: "You joined " + o.Name, Organization: presentOrganization(o)}, nil
}

func (a *API) declineInvitation(c *gin.Context) (int, any, error) {
	return idAction(a.R.People.DeclineInvitation, messageData{Message: "Invitation declined"})(c)
}

// invitationRoutes: the invitations addressed to the signed-in person,
// whichever organization made them; joining an organization is the
// person's own decision.
func (a *API) invitationRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/me/invitations", Op: "myInvitations", Out: invitationsData{}, Handle: a.myInvitations},
		{Method: post, Path: "/api/me/invitations/:id/accept", Op: "acceptInvitation", Out: joinedData{}, Handle: a.acceptInvitation},
		{Method: post, Path: "/api/me/invitations/:id/decline", Op: "declineInvitation", Out: messageData{}, Handle: a.declineInvitation},
	}
}
