package calling

import (
	"context"
	stdsql "database/sql"
	"errors"
	"slices"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/calltransfer"
	"switchboard/ent/contact"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/messaging"
)

// StoreCallEvents stores the platform's call events and permission replies
// of one organization in the transaction ctx carries (inbound.CallEvents).
// A user's call makes its call log (ringing) once per platform call id; a
// redelivered connect stores nothing and starts nothing. Live work (the
// SDP answer, the IVR, closing media) starts once the transaction commits.
func (m *Manager) StoreCallEvents(ctx context.Context, orgID uuid.UUID, evs []PlatformEvent, replies []PermissionReply) error {
	ctx = viewer.SystemContext(ctx, orgID)
	db := database.ClientFor(ctx, m.Client)
	// A batch ringing calls reads the organization once, on the
	// transaction's connection: 50 calls rung at once each reading it
	// after the commit took 50 connections from the pool (new ones, in a
	// burst) on the way to pre_accept.
	if slices.ContainsFunc(evs, isIncomingCall) {
		org, err := db.Organization.Get(ctx, orgID)
		if err != nil {
			return err
		}
		ctx = withOrganization(ctx, org)
	}
	var recorded []events.Event
	var after []func()
	for _, ev := range evs {
		evts, run, err := m.storeCallEvent(ctx, db, orgID, ev)
		if err != nil {
			return err
		}
		recorded = append(recorded, evts...)
		if run != nil {
			after = append(after, run)
		}
	}
	for _, r := range replies {
		if m.Permissions == nil {
			break
		}
		if err := m.Permissions.ApplyPermissionReply(ctx, orgID, r.Account.Name, r.From, r.Accepted, r.Permanent, r.ExpiresAt); err != nil {
			return err
		}
		status := "declined"
		if r.Accepted {
			status = "accepted"
		}
		recorded = append(recorded, events.Event{Type: events.CallPermissionUpdate, OrgID: orgID, Payload: map[string]any{
			"phone_number": r.From, "chat_account": r.Account.Name, "status": status, "expires_at": r.ExpiresAt,
		}})
	}
	if err := m.Events.Record(ctx, recorded...); err != nil {
		return err
	}
	if len(after) > 0 {
		database.AfterCommit(ctx, func() {
			for _, run := range after {
				go run()
			}
		})
	}
	return nil
}

// storeCallEvent stores one event and returns its domain events and the
// live work to start after the commit (nil: none).
func (m *Manager) storeCallEvent(ctx context.Context, db *ent.Client, orgID uuid.UUID, ev PlatformEvent) ([]events.Event, func(), error) {
	switch {
	case isIncomingCall(ev):
		return m.storeIncoming(ctx, db, orgID, ev)
	case ev.Kind == EventConnect && ev.SDPType == "answer":
		return nil, func() { m.deliverAnswer(orgID, ev) }, nil
	case ev.Kind == EventTerminate:
		return m.storeTerminate(ctx, db, orgID, ev)
	case ev.Kind == EventStatus:
		return m.storeStatus(ctx, db, orgID, ev)
	}
	m.Log.Warn("call event skipped", "kind", ev.Kind, "sdp_type", ev.SDPType, "call_id", ev.CallID)
	return nil, nil, nil
}

// storeIncoming makes a user's call's log, ringing, and its contact.
func (m *Manager) storeIncoming(ctx context.Context, db *ent.Client, orgID uuid.UUID, ev PlatformEvent) ([]events.Event, func(), error) {
	c, created, err := m.callerContact(ctx, db, ev)
	if err != nil {
		return nil, nil, err
	}
	id := uuid.New()
	err = db.CallLog.Create().SetID(id).SetOrganizationID(orgID).SetChatAccount(ev.Account.Name).
		SetChatCallID(ev.CallID).SetCallerPhone(ev.From).SetContactID(c.ID).SetDirection(calllog.DirectionIncoming).
		SetStatus(calllog.StatusRinging).SetStartedAt(ev.Timestamp).
		OnConflictColumns(calllog.FieldOrganizationID, calllog.FieldChatCallID).DoNothing().Exec(ctx)
	if isNoRows(err) {
		return nil, nil, nil // a redelivery: the call is already handled
	}
	if err != nil {
		return nil, nil, err
	}
	log, err := db.CallLog.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	evs := []events.Event{{Type: events.CallIncoming, OrgID: orgID, Payload: callLogEvent(log, c.Name)}}
	if created {
		evs = append(evs, events.Event{Type: events.ContactCreated, OrgID: orgID, Payload: messaging.NewContactEvent(c)})
	}
	org := organizationOf(ctx)
	return evs, func() { m.answerIncoming(org, log.ID, ev) }, nil
}

// isIncomingCall: a user's call rings (its connect with the SDP offer).
func isIncomingCall(ev PlatformEvent) bool {
	return ev.Kind == EventConnect && ev.SDPType == "offer" && ev.Direction != BusinessInitiated
}

type orgKey struct{}

// withOrganization carries the batch's organization to storeIncoming.
func withOrganization(ctx context.Context, org *ent.Organization) context.Context {
	return context.WithValue(ctx, orgKey{}, org)
}

func organizationOf(ctx context.Context) *ent.Organization {
	org, _ := ctx.Value(orgKey{}).(*ent.Organization)
	return org
}

// callerContact finds or creates the contact of the call's user.
func (m *Manager) callerContact(ctx context.Context, db *ent.Client, ev PlatformEvent) (*ent.Contact, bool, error) {
	phone := ev.Contact()
	c, err := db.Contact.Query().Where(contact.PhoneNumber(phone)).Only(ctx)
	if err == nil || !ent.IsNotFound(err) {
		return c, false, err
	}
	name := ev.ProfileName
	err = db.Contact.Create().SetOrganizationID(viewer.FromContext(ctx).OrgID).SetPhoneNumber(phone).
		SetName(name).SetProfileName(name).SetChatAccount(ev.Account.Name).
		OnConflict(sql.ConflictColumns(contact.FieldOrganizationID, contact.FieldPhoneNumber)).DoNothing().Exec(ctx)
	created := err == nil // on conflict (made meanwhile) the insert did nothing
	if err != nil && !isNoRows(err) {
		return nil, false, err
	}
	c, err = db.Contact.Query().Where(contact.PhoneNumber(phone)).Only(ctx)
	return c, created && err == nil, err
}

// storeTerminate ends the call's log (and its open transfers) once.
func (m *Manager) storeTerminate(ctx context.Context, db *ent.Client, orgID uuid.UUID, ev PlatformEvent) ([]events.Event, func(), error) {
	log, err := db.CallLog.Query().Where(calllog.ChatCallID(ev.CallID)).Only(ctx)
	if ent.IsNotFound(err) {
		m.Log.Info("terminate of an unknown call skipped", "call_id", ev.CallID)
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	status := calllog.StatusCompleted
	switch {
	case ev.Status == "Failed" || ev.Status == "FAILED":
		status = calllog.StatusFailed
	case log.AnsweredAt == nil && log.Direction == calllog.DirectionIncoming:
		status = calllog.StatusMissed
	case log.AnsweredAt == nil:
		status = calllog.StatusRejected
	}
	evs, err := m.endLog(ctx, db, log, status, ByContact, ev.Timestamp, ev.Duration)
	if err != nil {
		return nil, nil, err
	}
	return evs, func() { m.closeLive(log.ID) }, nil
}

// storeStatus follows a business-initiated call: ACCEPTED answers it,
// REJECTED ends it.
func (m *Manager) storeStatus(ctx context.Context, db *ent.Client, orgID uuid.UUID, ev PlatformEvent) ([]events.Event, func(), error) {
	log, err := db.CallLog.Query().Where(calllog.ChatCallID(ev.CallID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil || log.EndedAt != nil {
		return nil, nil, err
	}
	switch ev.Status {
	case "RINGING":
		return []events.Event{{Type: events.OutgoingCallRinging, OrgID: orgID, Payload: callLogEvent(log, "")}}, nil, nil
	case "ACCEPTED":
		n, err := db.CallLog.Update().Where(calllog.ID(log.ID), calllog.AnsweredAtIsNil(), calllog.EndedAtIsNil()).
			SetStatus(calllog.StatusAnswered).SetAnsweredAt(ev.Timestamp).Save(ctx)
		if err != nil || n == 0 {
			return nil, nil, err
		}
		log.Status, log.AnsweredAt = calllog.StatusAnswered, &ev.Timestamp
		return []events.Event{{Type: events.OutgoingCallAnswered, OrgID: orgID, Payload: callLogEvent(log, "")}}, nil, nil
	case "REJECTED":
		evs, err := m.endLog(ctx, db, log, calllog.StatusRejected, ByContact, ev.Timestamp, 0)
		if err != nil {
			return nil, nil, err
		}
		evs = append(evs, events.Event{Type: events.OutgoingCallRejected, OrgID: orgID, Payload: callLogEvent(log, "")})
		return evs, func() { m.closeLive(log.ID) }, nil
	}
	return nil, nil, nil
}

// endLog moves a call log that has not ended to status, with its end
// time, duration (the platform's when known, else from the answer) and
// who hung up, and ends its open transfers: a waiting one is abandoned,
// a connected one completed with its talk time. It does nothing to a log
// that has already ended, so every path that ends a call may call it.
func (m *Manager) endLog(ctx context.Context, db *ent.Client, log *ent.CallLog, status calllog.Status, by string, at time.Time, platformDuration int) ([]events.Event, error) {
	duration := platformDuration
	if duration == 0 && log.AnsweredAt != nil && at.After(*log.AnsweredAt) {
		duration = int(at.Sub(*log.AnsweredAt).Seconds())
	}
	n, err := db.CallLog.Update().Where(calllog.ID(log.ID), calllog.EndedAtIsNil()).
		SetStatus(status).SetEndedAt(at).SetDuration(duration).SetDisconnectedBy(by).Save(ctx)
	if err != nil || n == 0 {
		return nil, err
	}
	log.Status, log.EndedAt, log.Duration, log.DisconnectedBy = status, &at, duration, by
	evs := []events.Event{{Type: events.CallEnded, OrgID: log.OrganizationID, Payload: callLogEvent(log, "")}}
	open, err := db.CallTransfer.Query().Where(calltransfer.CallLogID(log.ID),
		calltransfer.StatusIn(calltransfer.StatusWaiting, calltransfer.StatusConnected)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range open {
		ev, err := finishTransfer(ctx, db, t, at)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev...)
	}
	return evs, nil
}

// finishTransfer ends an open transfer as its call ended: waiting →
// abandoned (the caller left), connected → completed.
func finishTransfer(ctx context.Context, db *ent.Client, t *ent.CallTransfer, at time.Time) ([]events.Event, error) {
	if t.Status == calltransfer.StatusWaiting {
		return moveTransfer(ctx, db, t, calltransfer.StatusAbandoned, at, events.CallTransferAbandoned)
	}
	return moveTransfer(ctx, db, t, calltransfer.StatusCompleted, at, events.CallTransferCompleted)
}

// moveTransfer ends an open transfer with status at, counting its waiting
// (hold) and talk time, unless it has already moved.
func moveTransfer(ctx context.Context, db *ent.Client, t *ent.CallTransfer, status calltransfer.Status, at time.Time, typ events.Type) ([]events.Event, error) {
	u := db.CallTransfer.Update().Where(calltransfer.ID(t.ID), calltransfer.StatusEQ(t.Status)).
		SetStatus(status).SetCompletedAt(at)
	if t.ConnectedAt != nil {
		u.SetTalkDuration(max(0, int(at.Sub(*t.ConnectedAt).Seconds())-t.HoldDuration+holdBeforeConnect(t)))
	} else {
		u.SetHoldDuration(max(0, int(at.Sub(t.TransferredAt).Seconds())))
	}
	n, err := u.Save(ctx)
	if err != nil || n == 0 {
		return nil, err
	}
	t.Status, t.CompletedAt = status, &at
	return []events.Event{{Type: typ, OrgID: t.OrganizationID, Payload: transferEvent(t)}}, nil
}

// holdBeforeConnect is the part of t's hold time spent waiting before an
// agent connected, which talk time does not include.
func holdBeforeConnect(t *ent.CallTransfer) int {
	if t.ConnectedAt == nil {
		return 0
	}
	return max(0, int(t.ConnectedAt.Sub(t.TransferredAt).Seconds()))
}

// isNoRows reports ent's answer to an insert that did nothing on conflict.
func isNoRows(err error) bool {
	return errors.Is(err, stdsql.ErrNoRows)
}
