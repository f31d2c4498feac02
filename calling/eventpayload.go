package calling

import (
	"github.com/google/uuid"

	"switchboard/ent"
)

// CallLogEvent is a call log as call events carry it: its REST shape, and
// call_log_id (the id again, which the peer web UI reads on call events).
type CallLogEvent struct {
	CallLogView
	CallLogID uuid.UUID `json:"call_log_id"`
}

func callLogEvent(l *ent.CallLog, contactName string) CallLogEvent {
	n := &Names{}
	if l.ContactID != nil && contactName != "" {
		n.Contacts = map[uuid.UUID]string{*l.ContactID: contactName}
	}
	return CallLogEvent{CallLogView: ViewCallLog(l, n), CallLogID: l.ID}
}

func transferEvent(t *ent.CallTransfer) CallTransferView { return ViewCallTransfer(t) }
