package rest

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/people"
)

type organizationJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
}

func presentOrganization(o *ent.Organization) organizationJSON {
	return organizationJSON{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt}
}

// memberJSON is the spec's Organization member.
type memberJSON struct {
	ID             uuid.UUID `json:"id"`
	UserID         uuid.UUID `json:"user_id"`
	OrganizationID uuid.UUID `json:"organization_id"`
	RoleID         uuid.UUID `json:"role_id"`
	RoleName       string    `json:"role_name"`
	IsDefault      bool      `json:"is_default"`
	Email          string    `json:"email"`
	FullName       string    `json:"full_name"`
	IsActive       bool      `json:"is_active"`
	CreatedAt      time.Time `json:"created_at"`
}

// presentMember renders a membership with its user and role loaded.
func presentMember(m *ent.OrganizationMember) memberJSON {
	out := memberJSON{
		ID: m.ID, UserID: m.UserID, OrganizationID: m.OrganizationID, RoleID: m.RoleID,
		IsDefault: m.IsDefault, CreatedAt: m.CreatedAt,
	}
	if u := m.Edges.User; u != nil {
		out.Email, out.FullName, out.IsActive = u.Email, u.FullName, u.IsActive
	}
	if r := m.Edges.Role; r != nil {
		out.RoleName = r.Name
	}
	return out
}

// invitationMessage tells an admin what an invitation lets the person do.
// It reads the same whether or not the email has an account, and names no
// email (adding by user_id must not reveal one).
func invitationMessage(*ent.Invitation) string {
	return fmt.Sprintf("Invitation sent; the person joins the organization when they accept it "+
		"(from their invitations, or by registering if they have no account yet) within %d days",
		int(people.InvitationTTL.Hours()/24))
}

func (a *API) listOrganizations(c *gin.Context) (int, any, error) {
	orgs, err := a.R.People.Organizations(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	out := make([]organizationJSON, len(orgs))
	for i, o := range orgs {
		out[i] = presentOrganization(o)
	}
	return http.StatusOK, organizationsData{Organizations: out}, nil
}

func (a *API) currentOrganization(c *gin.Context) (int, any, error) {
	o, err := a.R.People.CurrentOrganization(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentOrganization(o), nil
}

// createOrganizationBody is the JSON body of createOrganization.
type createOrganizationBody struct {
	Name *string `json:"name" required:"true" nullable:"false" minLength:"1" example:"Acme Support" description:"At most 200 bytes."`
}

func (a *API) createOrganization(c *gin.Context) (int, any, error) {
	var b createOrganizationBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Name == nil {
		return 0, nil, apperr.Invalidf("name is required")
	}
	o, err := a.R.People.CreateOrganization(ctx(c), people.CreateOrganizationInput{Name: *b.Name})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentOrganization(o), nil
}

func (a *API) listMembers(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.People.ListMembers(ctx(c), people.MemberFilter{Search: queryOf[searchQuery](c).Search}, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]memberJSON, len(pg.Members))
	for i, m := range pg.Members {
		out[i] = presentMember(m)
	}
	return http.StatusOK, listPayload("members", out, pg.Total, p), nil
}

// addMemberBody is the JSON body of addMember.
type addMemberBody struct {
	UserID string  `json:"user_id" format:"uuid" description:"An existing user; user_id or email is required, not both."`
	Email  *string `json:"email" description:"A person to add (or invite, without an account); user_id or email is required, not both."`
	RoleID string  `json:"role_id" format:"uuid" description:"Default: the organization's default role."`
}

func (a *API) addMember(c *gin.Context) (int, any, error) {
	var b addMemberBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in := people.AddMemberInput{Email: b.Email}
	var err error
	if in.UserID, err = optionalUUID("user_id", b.UserID); err != nil {
		return 0, nil, err
	}
	if in.RoleID, err = optionalUUID("role_id", b.RoleID); err != nil {
		return 0, nil, err
	}
	res, err := a.R.People.AddMember(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	if res.Invitation != nil {
		return http.StatusCreated, messageData{Message: invitationMessage(res.Invitation)}, nil
	}
	return http.StatusCreated, messageData{Message: "Member added"}, nil
}

// updateMemberBody is the JSON body of updateMember.
type updateMemberBody struct {
	RoleID string `json:"role_id" required:"true" format:"uuid"`
}

func (a *API) updateMember(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateMemberBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	roleID, err := optionalUUID("role_id", b.RoleID)
	if err != nil {
		return 0, nil, err
	}
	if roleID == nil {
		return 0, nil, apperr.Invalidf("role_id is required")
	}
	if _, err := a.R.People.UpdateMemberRole(ctx(c), id, *roleID); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Member role updated"}, nil
}

func (a *API) removeMember(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.People.RemoveMember(ctx(c), id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Member removed"}, nil
}

// organizationRoutes: listing every organization needs organizations:read
// (the data layer shows a non-super-admin only their own); anyone signed in
// may create one and becomes its Admin. Members are managed with the
// users:* permissions.
func (a *API) organizationRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/organizations", Op: "organizations", Out: organizationsData{}, Handle: a.listOrganizations},
		{Method: post, Path: "/api/organizations", Op: "createOrganization", Status: http.StatusCreated, In: createOrganizationBody{}, Out: organizationJSON{}, Handle: a.createOrganization},
		{Method: get, Path: "/api/organizations/current", Op: "currentOrganization", Out: organizationJSON{}, Handle: a.currentOrganization},
		{Method: get, Path: "/api/organizations/members", Op: "members", Query: paged(50, searchQuery{}), Out: list("members", memberJSON{}), Handle: a.listMembers},
		{Method: post, Path: "/api/organizations/members", Op: "addMember", Status: http.StatusCreated, In: addMemberBody{}, Out: messageData{}, Handle: a.addMember},
		{Method: put, Path: "/api/organizations/members/:id", Op: "updateMemberRole", In: updateMemberBody{}, Out: messageData{}, Handle: a.updateMember},
		{Method: del, Path: "/api/organizations/members/:id", Op: "removeMember", Out: messageData{}, Handle: a.removeMember},
	}
}
