package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/people"
)

// presentMemberUser renders a member of the organization as the spec's
// User, with its role there.
func presentMemberUser(m *ent.OrganizationMember) userJSON {
	return presentUser(m.Edges.User, m.OrganizationID, m.Edges.Role, false)
}

// invitationJSON is a pending invitation to register.
type invitationJSON struct {
	ID          uuid.UUID  `json:"id"`
	Email       string     `json:"email"`
	RoleID      uuid.UUID  `json:"role_id"`
	InvitedByID *uuid.UUID `json:"invited_by_id"`
	ExpiresAt   time.Time  `json:"expires_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

func presentInvitation(inv *ent.Invitation) invitationJSON {
	return invitationJSON{
		ID: inv.ID, Email: inv.Email, RoleID: inv.RoleID, InvitedByID: inv.InvitedByID,
		ExpiresAt: inv.ExpiresAt, CreatedAt: inv.CreatedAt,
	}
}

func (a *API) listUsers(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[usersQuery](c)
	// role_id is the web client's role filter (the spec shows no users
	// endpoint).
	pg, err := a.R.People.ListMembers(ctx(c), people.MemberFilter{Search: q.Search, RoleID: q.RoleID}, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]userJSON, len(pg.Members))
	for i, m := range pg.Members {
		out[i] = presentMemberUser(m)
	}
	return http.StatusOK, listPayload("users", out, pg.Total, p), nil
}

func (a *API) getUser(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	m, err := a.R.People.User(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentMemberUser(m), nil
}

// createUserBody is the JSON body of createUser.
type createUserBody struct {
	Email    string  `json:"email" required:"true" format:"email" example:"ada@example.com" description:"At most 320 bytes."`
	FullName string  `json:"full_name" example:"Ada Lovelace" description:"Required with a password (1 to 200 characters); without one the person is invited and names themselves."`
	Password *string `json:"password" minLength:"12" description:"Only a super admin sets another person's password: at least 12 characters and at most 256 bytes. Absent: the person is invited."`
	RoleID   string  `json:"role_id" format:"uuid" description:"Default: the organization's default role."`
}

func (a *API) createUser(c *gin.Context) (int, any, error) {
	var b createUserBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in := people.CreateUserInput{Email: b.Email, FullName: b.FullName, Password: b.Password}
	var err error
	if in.RoleID, err = optionalUUID("role_id", b.RoleID); err != nil {
		return 0, nil, err
	}
	res, err := a.R.People.CreateUser(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	if res.Invitation != nil {
		return http.StatusCreated, invitedUserData{
			Message:    invitationMessage(res.Invitation),
			Invitation: presentInvitation(res.Invitation),
		}, nil
	}
	return http.StatusCreated, presentMemberUser(res.Member), nil
}

// updateUserBody is the JSON body of updateUser.
type updateUserBody struct {
	FullName *string `json:"full_name" minLength:"1" maxLength:"200"`
	IsActive *bool   `json:"is_active"`
	RoleID   string  `json:"role_id" format:"uuid"`
	Password *string `json:"password" minLength:"12" description:"At least 12 characters and at most 256 bytes."`
}

func (a *API) updateUser(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateUserBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in := people.UpdateUserInput{FullName: b.FullName, IsActive: b.IsActive, Password: b.Password}
	if in.RoleID, err = optionalUUID("role_id", b.RoleID); err != nil {
		return 0, nil, err
	}
	m, err := a.R.People.UpdateUser(ctx(c), id, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentMemberUser(m), nil
}

func (a *API) deleteUser(c *gin.Context) (int, any, error) {
	return idAction(a.R.People.DeleteUser, messageData{Message: "User removed from the organization"})(c)
}

// userRoutes is user administration within the current organization: a
// user here is a member, shown with their role in it.
func (a *API) userRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/users", Op: "users", Query: paged(50, usersQuery{}), Out: list("users", userJSON{}), Handle: a.listUsers},
		{Method: post, Path: "/api/users", Op: "createUser", Status: http.StatusCreated, In: createUserBody{}, Out: createdUserData{}, Handle: a.createUser},
		{Method: get, Path: "/api/users/:id", Op: "user", Out: userJSON{}, Handle: a.getUser},
		{Method: put, Path: "/api/users/:id", Op: "updateUser", In: updateUserBody{}, Out: userJSON{}, Handle: a.updateUser},
		{Method: del, Path: "/api/users/:id", Op: "deleteUser", Out: messageData{}, Handle: a.deleteUser},
	}
}
