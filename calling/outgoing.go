package calling

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/media"
	"switchboard/ent"
	"switchboard/ent/callpermission"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/provider"
)

// StartOutgoing calls a contact from chat_account on behalf of the signed-in
// agent: the agent's browser leg answers sdpOffer, the platform's leg
// offers, and the platform connects the contact (POST /api/calls/outgoing).
// The contact must have granted the account call permission. The bridge
// starts when the platform's SDP answer arrives on the calls webhook. It
// returns the call's log and the agent leg's SDP answer.
func (m *Manager) StartOutgoing(ctx context.Context, contactID uuid.UUID, chatAccount, sdpOffer string) (*ent.CallLog, string, error) {
	switch {
	case sdpOffer == "":
		return nil, "", apperr.Invalidf("sdp_offer is required")
	case len(sdpOffer) > maxSDP:
		return nil, "", apperr.Invalidf("sdp_offer is longer than %d bytes", maxSDP)
	case chatAccount == "":
		return nil, "", apperr.Invalidf("chat_account is required")
	}
	c, err := m.Client.Contact.Get(ctx, contactID)
	if err != nil {
		return nil, "", apperr.Wrap(err, "contact")
	}
	acc, err := m.accountNamed(ctx, chatAccount)
	if err != nil {
		return nil, "", err
	}
	org, err := m.Client.Organization.Get(ctx, c.OrganizationID)
	if err != nil {
		return nil, "", apperr.Wrap(err, "organization")
	}
	if !org.CallingEnabled || !acc.BusinessCallingEnabled {
		return nil, "", apperr.Invalidf("calling is not enabled for this organization and account")
	}
	if err := m.checkPermission(ctx, contactID, chatAccount); err != nil {
		return nil, "", err
	}
	plat, err := m.providerAccount(acc)
	if err != nil {
		return nil, "", err
	}
	logID := uuid.New()
	lc := m.newLiveCall(org, acc, plat, logID, "", false)
	agentLeg, agentAnswer, err := m.Engine.Answer(lc.ctx, sdpOffer, media.LegOptions{OnClose: lc.agentGone})
	if err != nil {
		lc.discard()
		return nil, "", apperr.Invalidf("sdp_offer is not a usable SDP offer")
	}
	platLeg, platOffer, err := m.Engine.Offer(lc.ctx, media.LegOptions{OnDTMF: lc.pressed, OnClose: lc.callerGone})
	if err != nil {
		lc.discard(agentLeg)
		return nil, "", err
	}
	lc.caller, lc.agent = platLeg, agentLeg
	callID, err := m.Provider.StartCall(ctx, plat, c.PhoneNumber, platOffer, logID.String())
	if err != nil {
		lc.discard(agentLeg, platLeg)
		return nil, "", provider.AppError(err)
	}
	lc.callID = callID
	userID := viewer.FromContext(ctx).UserID
	l, err := m.Client.CallLog.Create().SetID(logID).SetOrganizationID(org.ID).SetChatAccount(acc.Name).
		SetChatCallID(callID).SetCallerPhone(c.PhoneNumber).SetContactID(c.ID).SetDirection("outgoing").
		SetStatus("ringing").SetAgentID(userID).SetStartedAt(m.now()).Save(ctx)
	if err != nil {
		lc.hangup(ctx, BySystem)
		return nil, "", apperr.Wrap(err, "call log")
	}
	if err := m.Events.Record(ctx, events.Event{Type: events.CallIncoming, OrgID: org.ID, Payload: callLogEvent(l, c.Name)}); err != nil {
		m.Log.Warn("recording a call event failed", "error", err)
	}
	if err := m.register(ctx, lc); err != nil {
		m.Log.Error("claiming a call failed", "error", err)
	}
	lc.limitDuration()
	return l, agentAnswer, nil
}

// checkPermission refuses a call the contact has not allowed.
func (m *Manager) checkPermission(ctx context.Context, contactID uuid.UUID, chatAccount string) error {
	p, err := m.Client.CallPermission.Query().
		Where(callpermission.ContactID(contactID), callpermission.ChatAccount(chatAccount)).
		Order(ent.Desc(callpermission.FieldRequestedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return apperr.Invalidf("the contact has not granted call permission; send a permission request first")
	}
	if err != nil {
		return err
	}
	if p.Status != callpermission.StatusAccepted || (p.ExpiresAt != nil && !p.ExpiresAt.After(m.now())) {
		return apperr.Invalidf("the contact's call permission is %s; a call needs an accepted, unexpired permission", permissionState(p, m.now()))
	}
	return nil
}

func permissionState(p *ent.CallPermission, now time.Time) string {
	if p.ExpiresAt != nil && !p.ExpiresAt.After(now) {
		return "expired"
	}
	return string(p.Status)
}

// deliverAnswer hands the platform's SDP answer to the business's call's
// leg, on the node holding it.
func (m *Manager) deliverAnswer(orgID uuid.UUID, ev PlatformEvent) {
	ctx, cancel := context.WithTimeout(viewer.SystemContext(context.Background(), orgID), controlTimeout)
	defer cancel()
	l, err := m.logByCallID(ctx, ev.CallID)
	if err != nil {
		m.Log.Warn("SDP answer for an unknown call", "call_id", ev.CallID, "error", err)
		return
	}
	if _, err := m.route(ctx, controlRequest{OrgID: orgID, LogID: l.ID, Op: opAnswer, SDP: ev.SDP}); err != nil {
		m.Log.Warn("delivering a call's SDP answer failed", "call_log_id", l.ID, "error", err)
	}
}

// platformAnswered completes the business's call with the platform's SDP
// answer and bridges the agent to the contact.
func (lc *liveCall) platformAnswered(sdp string) error {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.caller == nil || lc.agent == nil {
		return apperr.New(apperr.Conflict, "the call has no pending offer")
	}
	if err := lc.caller.SetAnswer(sdp); err != nil {
		return apperr.Invalidf("the platform's SDP answer is not usable")
	}
	if lc.bridge == nil {
		lc.bridge = media.Bridge(lc.caller, lc.agent)
		go lc.record(lc.caller, "contact")
		go lc.record(lc.agent, "agent")
	}
	return nil
}
