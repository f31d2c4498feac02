package calling

import (
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
)

// CallLogView is the spec's Call log as REST answers it and call events
// carry it, with the names the peer web UI shows (flat, and as the small
// objects it reads).
type CallLogView struct {
	ID                  uuid.UUID  `json:"id"`
	OrganizationID      uuid.UUID  `json:"organization_id"`
	ChatAccount         string     `json:"chat_account"`
	ContactID           *uuid.UUID `json:"contact_id"`
	ChatCallID          string     `json:"chat_call_id"`
	CallerPhone         string     `json:"caller_phone"`
	Direction           string     `json:"direction"`
	Status              string     `json:"status"`
	Duration            int        `json:"duration"`
	IVRFlowID           *uuid.UUID `json:"ivr_flow_id"`
	AgentID             *uuid.UUID `json:"agent_id"`
	StartedAt           time.Time  `json:"started_at"`
	AnsweredAt          *time.Time `json:"answered_at"`
	EndedAt             *time.Time `json:"ended_at"`
	DisconnectedBy      string     `json:"disconnected_by"`
	RecordingStorageKey string     `json:"recording_storage_key"`
	RecordingDuration   int        `json:"recording_duration"`
	CreatedAt           time.Time  `json:"created_at"`
	ContactName         string     `json:"contact_name"`
	AgentName           string     `json:"agent_name"`
	IVRFlowName         string     `json:"ivr_flow_name"`
	Contact             *NamedRef  `json:"contact"`
	Agent               *NamedRef  `json:"agent"`
	IVRFlow             *NamedRef  `json:"ivr_flow"`
}

// NamedRef is a related record's id and name: contact {id, profile_name},
// agent {id, full_name}, ivr_flow {id, name}.
type NamedRef struct {
	ID          uuid.UUID `json:"id"`
	ProfileName string    `json:"profile_name,omitempty"`
	FullName    string    `json:"full_name,omitempty"`
	Name        string    `json:"name,omitempty"`
}

// ViewCallLog presents l with the names n holds (n may be nil).
func ViewCallLog(l *ent.CallLog, n *Names) CallLogView {
	if n == nil {
		n = &Names{}
	}
	out := CallLogView{
		ID: l.ID, OrganizationID: l.OrganizationID, ChatAccount: l.ChatAccount, ContactID: l.ContactID,
		ChatCallID: l.ChatCallID, CallerPhone: l.CallerPhone, Direction: string(l.Direction), Status: string(l.Status),
		Duration: l.Duration, IVRFlowID: l.IvrFlowID, AgentID: l.AgentID, StartedAt: l.StartedAt,
		AnsweredAt: l.AnsweredAt, EndedAt: l.EndedAt, DisconnectedBy: l.DisconnectedBy,
		RecordingStorageKey: l.RecordingStorageKey, RecordingDuration: l.RecordingDuration, CreatedAt: l.CreatedAt,
	}
	if l.ContactID != nil {
		out.ContactName = n.Contacts[*l.ContactID]
		out.Contact = &NamedRef{ID: *l.ContactID, ProfileName: out.ContactName}
	}
	if l.AgentID != nil {
		out.AgentName = n.Agents[*l.AgentID]
		out.Agent = &NamedRef{ID: *l.AgentID, FullName: out.AgentName}
	}
	if l.IvrFlowID != nil {
		out.IVRFlowName = n.Flows[*l.IvrFlowID]
		out.IVRFlow = &NamedRef{ID: *l.IvrFlowID, Name: out.IVRFlowName}
	}
	return out
}

// CallTransferView is the spec's Call transfer with the detail fields, as
// REST answers it and call events carry it.
type CallTransferView struct {
	ID             uuid.UUID  `json:"id"`
	OrganizationID uuid.UUID  `json:"organization_id"`
	CallLogID      uuid.UUID  `json:"call_log_id"`
	ChatCallID     string     `json:"chat_call_id"`
	CallerPhone    string     `json:"caller_phone"`
	ContactID      *uuid.UUID `json:"contact_id"`
	ChatAccount    string     `json:"chat_account"`
	Status         string     `json:"status"`
	TeamID         *uuid.UUID `json:"team_id"`
	TransferredAt  time.Time  `json:"transferred_at"`
	AgentID        *uuid.UUID `json:"agent_id"`
	ConnectedAt    *time.Time `json:"connected_at"`
	CompletedAt    *time.Time `json:"completed_at"`
	HoldDuration   int        `json:"hold_duration"`
	TalkDuration   int        `json:"talk_duration"`
}

// ViewCallTransfer presents t.
func ViewCallTransfer(t *ent.CallTransfer) CallTransferView {
	return CallTransferView{
		ID: t.ID, OrganizationID: t.OrganizationID, CallLogID: t.CallLogID, ChatCallID: t.ChatCallID,
		CallerPhone: t.CallerPhone, ContactID: t.ContactID, ChatAccount: t.ChatAccount, Status: string(t.Status),
		TeamID: t.TeamID, TransferredAt: t.TransferredAt, AgentID: t.AgentID, ConnectedAt: t.ConnectedAt,
		CompletedAt: t.CompletedAt, HoldDuration: t.HoldDuration, TalkDuration: t.TalkDuration,
	}
}
