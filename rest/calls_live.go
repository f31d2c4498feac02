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
		{Method: post, Path: "/api/call-transfers/initiate", Op: "initiateCallTransfer", In: initiateCallTransferBody{}, Out: statusData{}, Handle: a.initiateCallTransfer},
		{Method: post, Path: "/api/call-transfers/:id/connect", Op: "connectCallTransfer", In: connectCallTransferBody{}, Out: sdpAnswerData{}, Handle: a.connectCallTransfer},
		{Method: post, Path: "/api/call-transfers/:id/hangup", Op: "hangupCallTransfer", Out: statusData{},
			Handle: idAction(a.hangupCallTransfer, statusData{Status: "completed"})},
		{Method: post, Path: "/api/call-logs/:id/hold", Op: "holdCall", Out: statusData{},
			Handle: idAction(a.holdCall, statusData{Status: "on_hold"})},
		{Method: post, Path: "/api/call-logs/:id/resume", Op: "resumeCall", Out: statusData{},
			Handle: idAction(a.resumeCall, statusData{Status: "connected"})},
		{Method: post, Path: "/api/calls/outgoing", Op: "startOutgoingCall", In: startOutgoingCallBody{}, Out: outgoingCallData{}, Handle: a.startOutgoingCall},
		{Method: post, Path: "/api/calls/outgoing/:id/hangup", Op: "hangupOutgoingCall", Out: statusData{},
			Handle: idAction(a.hangupCall, statusData{Status: "ok"})},
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

// initiateCallTransferBody is the JSON body of initiateCallTransfer.
type initiateCallTransferBody struct {
	CallLogID *uuid.UUID `json:"call_log_id" required:"true" nullable:"false"`
	TeamID    *uuid.UUID `json:"team_id" required:"true" nullable:"false"`
	AgentID   *uuid.UUID `json:"agent_id" description:"A member of the team to hand the call to (optional)."`
}

func (a *API) initiateCallTransfer(c *gin.Context) (int, any, error) {
	var b initiateCallTransferBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	switch {
	case b.CallLogID == nil:
		return 0, nil, apperr.Invalidf("call_log_id is required")
	case b.TeamID == nil:
		return 0, nil, apperr.Invalidf("team_id is required")
	}
	if err := a.R.Calls.InitiateTransfer(ctx(c), *b.CallLogID, *b.TeamID, b.AgentID); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, statusData{Status: "transferring"}, nil
}

// connectCallTransferBody is the JSON body of connectCallTransfer.
type connectCallTransferBody struct {
	SDPOffer string `json:"sdp_offer" required:"true" minLength:"1" description:"The agent browser's SDP offer, at most 65536 bytes."`
}

func (a *API) connectCallTransfer(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b connectCallTransferBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	answer, err := a.R.Calls.ConnectTransfer(ctx(c), id, b.SDPOffer)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, sdpAnswerData{SDPAnswer: answer}, nil
}

// startOutgoingCallBody is the JSON body of startOutgoingCall.
type startOutgoingCallBody struct {
	ContactID   *uuid.UUID `json:"contact_id" required:"true" nullable:"false"`
	ChatAccount string     `json:"chat_account" required:"true" minLength:"1" example:"Main" description:"The name of an account of the organization, with business calling enabled."`
	SDPOffer    string     `json:"sdp_offer" required:"true" minLength:"1" description:"The agent browser's SDP offer, at most 65536 bytes."`
}

func (a *API) startOutgoingCall(c *gin.Context) (int, any, error) {
	var b startOutgoingCallBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.ContactID == nil {
		return 0, nil, apperr.Invalidf("contact_id is required")
	}
	l, answer, err := a.R.Calls.StartOutgoing(ctx(c), *b.ContactID, b.ChatAccount, b.SDPOffer)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, outgoingCallData{CallLogID: l.ID, SDPAnswer: answer}, nil
}
