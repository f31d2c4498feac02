package rest

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
)

// The live call endpoints: they act on calls in progress through the call
// manager, which runs each on the node holding the call's media.
func (a *API) liveCallRoutes() []Route {
	return []Route{
		{Method: post, Path: "/api/call-transfers/initiate", Op: "initiateCallTransfer", Handle: a.initiateCallTransfer},
		{Method: post, Path: "/api/call-transfers/:id/connect", Op: "connectCallTransfer", Handle: a.connectCallTransfer},
		{Method: post, Path: "/api/call-transfers/:id/hangup", Op: "hangupCallTransfer",
			Handle: idAction(a.hangupCallTransfer, gin.H{"status": "completed"})},
		{Method: post, Path: "/api/call-logs/:id/hold", Op: "holdCall",
			Handle: idAction(a.holdCall, gin.H{"status": "on_hold"})},
		{Method: post, Path: "/api/call-logs/:id/resume", Op: "resumeCall",
			Handle: idAction(a.resumeCall, gin.H{"status": "connected"})},
		{Method: post, Path: "/api/calls/outgoing", Op: "startOutgoingCall", Handle: a.startOutgoingCall},
		{Method: post, Path: "/api/calls/outgoing/:id/hangup", Op: "hangupOutgoingCall",
			Handle: idAction(a.hangupCall, gin.H{"status": "ok"})},
	}
}

func (a *API) hangupCallTransfer(ctx context.Context, id uuid.UUID) error {
	return a.R.Calls.HangupTransfer(ctx, id)
}
func (a *API) holdCall(ctx context.Context, id uuid.UUID) error   { return a.R.Calls.Hold(ctx, id) }
func (a *API) resumeCall(ctx context.Context, id uuid.UUID) error { return a.R.Calls.Resume(ctx, id) }
func (a *API) hangupCall(ctx context.Context, id uuid.UUID) error {
	return a.R.Calls.HangupCall(ctx, id)
}

func (a *API) initiateCallTransfer(c *gin.Context) (int, any, error) {
	var body struct {
		CallLogID *uuid.UUID `json:"call_log_id"`
		TeamID    *uuid.UUID `json:"team_id"`
		AgentID   *uuid.UUID `json:"agent_id"`
	}
	if err := bindJSON(c, &body, false); err != nil {
		return 0, nil, err
	}
	switch {
	case body.CallLogID == nil:
		return 0, nil, apperr.Invalidf("call_log_id is required")
	case body.TeamID == nil:
		return 0, nil, apperr.Invalidf("team_id is required")
	}
	if err := a.R.Calls.InitiateTransfer(ctx(c), *body.CallLogID, *body.TeamID, body.AgentID); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, gin.H{"status": "transferring"}, nil
}

func (a *API) connectCallTransfer(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var body struct {
		SDPOffer string `json:"sdp_offer"`
	}
	if err := bindJSON(c, &body, false); err != nil {
		return 0, nil, err
	}
	answer, err := a.R.Calls.ConnectTransfer(ctx(c), id, body.SDPOffer)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, gin.H{"sdp_answer": answer}, nil
}

func (a *API) startOutgoingCall(c *gin.Context) (int, any, error) {
	var body struct {
		ContactID   *uuid.UUID `json:"contact_id"`
		ChatAccount string     `json:"chat_account"`
		SDPOffer    string     `json:"sdp_offer"`
	}
	if err := bindJSON(c, &body, false); err != nil {
		return 0, nil, err
	}
	if body.ContactID == nil {
		return 0, nil, apperr.Invalidf("contact_id is required")
	}
	logID, answer, err := a.R.Calls.StartOutgoing(ctx(c), *body.ContactID, body.ChatAccount, body.SDPOffer)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, gin.H{"call_log_id": logID, "sdp_answer": answer}, nil
}
