package calling

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/teammember"
	"switchboard/ent/viewer"
)

// The live call operations of the API. Each loads what it acts on in the
// caller's organization (the data layer's tenant rule: another
// organization's id is not found), checks the rules, and runs on the node
// holding the call.

// InitiateTransfer hands a live call to teamID (and optionally agentID,
// who must belong to it): POST /api/call-transfers/initiate.
func (m *Manager) InitiateTransfer(ctx context.Context, logID, teamID uuid.UUID, agentID *uuid.UUID) error {
	l, err := m.liveLogOf(ctx, logID)
	if err != nil {
		return err
	}
	if _, err := m.Client.Team.Get(ctx, teamID); err != nil {
		return apperr.Wrap(err, "team")
	}
	if agentID != nil {
		ok, err := m.Client.TeamMember.Query().Where(teammember.TeamID(teamID), teammember.UserID(*agentID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Invalidf("agent_id is not a member of the team")
		}
	}
	_, err = m.route(ctx, controlRequest{OrgID: l.OrganizationID, LogID: logID, Op: opInitiate, TeamID: &teamID, AgentID: agentID})
	return err
}

// ConnectTransfer connects the signed-in agent's browser (its SDP offer) to
// a waiting transfer and returns the SDP answer.
func (m *Manager) ConnectTransfer(ctx context.Context, transferID uuid.UUID, sdpOffer string) (string, error) {
	if sdpOffer == "" {
		return "", apperr.Invalidf("sdp_offer is required")
	}
	if len(sdpOffer) > maxSDP {
		return "", apperr.Invalidf("sdp_offer is longer than %d bytes", maxSDP)
	}
	t, err := m.Client.CallTransfer.Get(ctx, transferID)
	if err != nil {
		return "", apperr.Wrap(err, "call transfer")
	}
	v := viewer.FromContext(ctx)
	return m.route(ctx, controlRequest{OrgID: t.OrganizationID, LogID: t.CallLogID, Op: opConnect,
		TransferID: transferID, UserID: v.UserID, SDP: sdpOffer})
}

// HangupTransfer ends the call of a transfer (the agent hung up).
func (m *Manager) HangupTransfer(ctx context.Context, transferID uuid.UUID) error {
	t, err := m.Client.CallTransfer.Get(ctx, transferID)
	if err != nil {
		return apperr.Wrap(err, "call transfer")
	}
	if _, err := m.liveLogOf(ctx, t.CallLogID); err != nil {
		return err
	}
	if err := mayControl(ctx, t.AgentID); err != nil {
		return err
	}
	_, err = m.route(ctx, controlRequest{OrgID: t.OrganizationID, LogID: t.CallLogID, Op: opHangup, By: ByAgent})
	return err
}

// Hold plays hold music to the caller of a connected call.
func (m *Manager) Hold(ctx context.Context, logID uuid.UUID) error {
	return m.simple(ctx, logID, opHold)
}

// Resume restores the bridge of a held call.
func (m *Manager) Resume(ctx context.Context, logID uuid.UUID) error {
	return m.simple(ctx, logID, opResume)
}

// HangupCall ends a live call (POST /api/calls/outgoing/{id}/hangup).
func (m *Manager) HangupCall(ctx context.Context, logID uuid.UUID) error {
	l, err := m.liveLogOf(ctx, logID)
	if err != nil {
		return err
	}
	if err := mayControl(ctx, l.AgentID); err != nil {
		return err
	}
	_, err = m.route(ctx, controlRequest{OrgID: l.OrganizationID, LogID: logID, Op: opHangup, By: ByAgent})
	return err
}

func (m *Manager) simple(ctx context.Context, logID uuid.UUID, op string) error {
	l, err := m.liveLogOf(ctx, logID)
	if err != nil {
		return err
	}
	if err := mayControl(ctx, l.AgentID); err != nil {
		return err
	}
	_, err = m.route(ctx, controlRequest{OrgID: l.OrganizationID, LogID: logID, Op: op})
	return err
}

// maxSDP bounds an SDP offer (browsers' are a few kilobytes).
const maxSDP = 64 << 10

// mayControl lets the call's agent act on it, and whoever holds
// call_logs:read (supervisors); others do not see the call (404), as in
// the call log listing's rule.
func mayControl(ctx context.Context, agentID *uuid.UUID) error {
	v := viewer.FromContext(ctx)
	if v == nil || v.System || v.Can("call_logs:read") || (agentID != nil && *agentID == v.UserID) {
		return nil
	}
	return apperr.NotFoundf("call log not found")
}
