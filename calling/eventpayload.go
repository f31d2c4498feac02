package calling

import (
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
)

// CallLogEvent is a call log as call events carry it (the spec's call log
// fields, and the contact's name when known).
type CallLogEvent struct {
	ID             uuid.UUID  `json:"id"`
	CallLogID      uuid.UUID  `json:"call_log_id"`
	ChatAccount    string     `json:"chat_account"`
	ContactID      *uuid.UUID `json:"contact_id"`
	ContactName    string     `json:"contact_name,omitempty"`
	ChatCallID     string     `json:"chat_call_id"`
	CallerPhone    string     `json:"caller_phone"`
	Direction      string     `json:"direction"`
	Status         string     `json:"status"`
	Duration       int        `json:"duration"`
	IVRFlowID      *uuid.UUID `json:"ivr_flow_id"`
	AgentID        *uuid.UUID `json:"agent_id"`
	StartedAt      time.Time  `json:"started_at"`
	AnsweredAt     *time.Time `json:"answered_at"`
	EndedAt        *time.Time `json:"ended_at"`
	DisconnectedBy string     `json:"disconnected_by"`
}

func callLogEvent(l *ent.CallLog, contactName string) CallLogEvent {
	return CallLogEvent{
		ID: l.ID, CallLogID: l.ID, ChatAccount: l.ChatAccount, ContactID: l.ContactID, ContactName: contactName,
		ChatCallID: l.ChatCallID, CallerPhone: l.CallerPhone, Direction: string(l.Direction), Status: string(l.Status),
		Duration: l.Duration, IVRFlowID: l.IvrFlowID, AgentID: l.AgentID, StartedAt: l.StartedAt,
		AnsweredAt: l.AnsweredAt, EndedAt: l.EndedAt, DisconnectedBy: l.DisconnectedBy,
	}
}

// TransferEvent is a call transfer as call events carry it.
type TransferEvent struct {
	ID            uuid.UUID  `json:"id"`
	CallLogID     uuid.UUID  `json:"call_log_id"`
	ChatCallID    string     `json:"chat_call_id"`
	CallerPhone   string     `json:"caller_phone"`
	ContactID     *uuid.UUID `json:"contact_id"`
	ChatAccount   string     `json:"chat_account"`
	Status        string     `json:"status"`
	TeamID        *uuid.UUID `json:"team_id"`
	AgentID       *uuid.UUID `json:"agent_id"`
	TransferredAt time.Time  `json:"transferred_at"`
	ConnectedAt   *time.Time `json:"connected_at"`
	CompletedAt   *time.Time `json:"completed_at"`
	HoldDuration  int        `json:"hold_duration"`
	TalkDuration  int        `json:"talk_duration"`
}

func transferEvent(t *ent.CallTransfer) TransferEvent {
	return TransferEvent{
		ID: t.ID, CallLogID: t.CallLogID, ChatCallID: t.ChatCallID, CallerPhone: t.CallerPhone, ContactID: t.ContactID,
		ChatAccount: t.ChatAccount, Status: string(t.Status), TeamID: t.TeamID, AgentID: t.AgentID,
		TransferredAt: t.TransferredAt, ConnectedAt: t.ConnectedAt, CompletedAt: t.CompletedAt,
		HoldDuration: t.HoldDuration, TalkDuration: t.TalkDuration,
	}
}
