package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/transfers"
)

// transferBody is the JSON of a transfer's creation.
type transferBody struct {
	ContactID   *string `json:"contact_id" required:"true" nullable:"false" format:"uuid"`
	ChatAccount string  `json:"chat_account" maxLength:"100"`
	TeamID      *string `json:"team_id" format:"uuid" description:"An active team; absent or null: none."`
	Notes       string  `json:"notes" maxLength:"2000"`
	Source      string  `json:"source" maxLength:"32" pattern:"^[a-z0-9_]*$" example:"manual" description:"Default manual."`
}

// assignBody is the JSON of an assignment; a null or missing agent_id
// unassigns.
type assignBody struct {
	AgentID *string `json:"agent_id" format:"uuid" description:"A member of the organization (and of the transfer's team); absent or null: unassigned."`
	TeamID  *string `json:"team_id" format:"uuid"`
}

func optionalUUIDPtr(name string, s *string) (*uuid.UUID, error) {
	if s == nil {
		return nil, nil
	}
	return optionalUUID(name, *s)
}

func (a *API) createTransfer(c *gin.Context) (int, any, error) {
	var b transferBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.ContactID == nil || *b.ContactID == "" {
		return 0, nil, apperr.Invalidf("contact_id is required")
	}
	contactID, err := optionalUUID("contact_id", *b.ContactID)
	if err != nil {
		return 0, nil, err
	}
	teamID, err := optionalUUIDPtr("team_id", b.TeamID)
	if err != nil {
		return 0, nil, err
	}
	t, err := a.R.Transfers.Create(ctx(c), transfers.CreateInput{
		ContactID: *contactID, ChatAccount: b.ChatAccount, TeamID: teamID, Notes: b.Notes, Source: b.Source,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, t, nil
}

func (a *API) listTransfers(c *gin.Context) (int, any, error) {
	q := queryOf[transfersQuery](c)
	queue, err := transfers.ParseQueue(q.TeamID)
	if err != nil {
		return 0, nil, err
	}
	inc, err := transfers.ParseInclude(q.Include)
	if err != nil {
		return 0, nil, err
	}
	pg, err := a.R.Transfers.List(ctx(c), transfers.ListInput{
		Status: q.Status, Queue: queue, Include: inc, Limit: q.Limit, Offset: q.Offset,
	})
	if err != nil {
		return 0, nil, err
	}
	counts := make(map[string]int, len(pg.TeamQueueCounts))
	for _, q := range pg.TeamQueueCounts {
		counts[q.TeamID.String()] = q.Count
	}
	return http.StatusOK, transfersData{
		Transfers: pg.Transfers, GeneralQueueCount: pg.GeneralQueueCount, TeamQueueCounts: counts,
		TotalCount: pg.TotalCount, Limit: pg.Limit, Offset: pg.Offset,
	}, nil
}

// pickTransfer answers 200 with a null transfer when the queue is empty:
// the peer web client shows "No transfers in queue" for that answer.
func (a *API) pickTransfer(c *gin.Context) (int, any, error) {
	queue, err := transfers.ParseQueue(queryOf[teamQueueQuery](c).TeamID)
	if err != nil {
		return 0, nil, err
	}
	t, err := a.R.Transfers.Pick(ctx(c), queue)
	if err != nil {
		return 0, nil, err
	}
	if t == nil {
		return http.StatusOK, transferPickData{Message: "No transfers in queue"}, nil
	}
	return http.StatusOK, transferPickData{Message: "Transfer picked", Transfer: t}, nil
}

func (a *API) assignTransfer(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b assignBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	agentID, err := optionalUUIDPtr("agent_id", b.AgentID)
	if err != nil {
		return 0, nil, err
	}
	teamID, err := optionalUUIDPtr("team_id", b.TeamID)
	if err != nil {
		return 0, nil, err
	}
	t, err := a.R.Transfers.Assign(ctx(c), id, transfers.AssignInput{AgentID: agentID, TeamID: teamID})
	if err != nil {
		return 0, nil, err
	}
	msg := "Transfer assigned"
	if t.AgentID == nil {
		msg = "Transfer returned to the queue"
	}
	return http.StatusOK, transferAssignData{Message: msg, AgentID: t.AgentID}, nil
}

func (a *API) resumeTransfer(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	if _, err := a.R.Transfers.Resume(ctx(c), id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Transfer resumed; the chatbot is active again"}, nil
}

// transferRoutes: the chatbot's hand-offs to agents. The rules of who may
// see and change which transfer are in package transfers.
func (a *API) transferRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/chatbot/transfers", Op: "chatbotTransfers", Query: transfersQuery{}, Out: transfersData{}, Handle: a.listTransfers},
		{Method: post, Path: "/api/chatbot/transfers", Op: "createChatbotTransfer", Status: http.StatusCreated, In: transferBody{}, Out: transfers.View{}, Handle: a.createTransfer},
		{Method: post, Path: "/api/chatbot/transfers/pick", Op: "pickChatbotTransfer", Query: teamQueueQuery{}, Out: transferPickData{}, Handle: a.pickTransfer},
		{Method: put, Path: "/api/chatbot/transfers/:id/assign", Op: "assignChatbotTransfer", In: assignBody{}, Out: transferAssignData{}, Handle: a.assignTransfer},
		{Method: put, Path: "/api/chatbot/transfers/:id/resume", Op: "resumeChatbotTransfer", Out: messageData{}, Handle: a.resumeTransfer},
	}
}
