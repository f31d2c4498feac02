package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"switchboard/ent"
)

// /ws frame types (GraphQL subscriptions follow the same stream).
const (
	FrameMessageNew     = "message:new"
	FrameMessageStatus  = "message:status"
	FrameContactNew     = "contact:new"
	FrameContactUpdated = "contact:updated"
	// A contact's internal notes (the web client's notes panel).
	FrameContactNoteCreated = "contact_note:created"
	FrameContactNoteUpdated = "contact_note:updated"
	FrameContactNoteDeleted = "contact_note:deleted"
	// A template's review status, quality or category changed.
	FrameTemplateStatus = "template:status"
	// A campaign's state changes and its counters.
	FrameCampaignStatus   = "campaign:status"
	FrameCampaignProgress = "campaign:progress"
	// The chatbot's hand-offs to human agents (the frame names the web
	// client of the peer product listens for).
	FrameAgentTransfer       = "agent_transfer"
	FrameAgentTransferAssign = "agent_transfer_assign"
	FrameAgentTransferResume = "agent_transfer_resume"
	// A transfer broke its SLA: the escalation people are named in it.
	FrameAgentTransferEscalated = "agent_transfer_escalated"
	// Voice calls, their hand-offs to agents' browsers and hold (the frame
	// names the web client of the peer product listens for).
	FrameCallIncoming          = "call_incoming"
	FrameCallAnswered          = "call_answered"
	FrameCallEnded             = "call_ended"
	FrameCallTransferWaiting   = "call_transfer_waiting"
	FrameCallTransferConnected = "call_transfer_connected"
	FrameCallTransferCompleted = "call_transfer_completed"
	FrameCallTransferAbandoned = "call_transfer_abandoned"
	FrameCallTransferNoAnswer  = "call_transfer_no_answer"
	FrameCallHold              = "call_hold"
	FrameCallResumed           = "call_resumed"
	FrameOutgoingCallRinging   = "outgoing_call_ringing"
	FrameOutgoingCallAnswered  = "outgoing_call_answered"
	FrameOutgoingCallRejected  = "outgoing_call_rejected"
	FrameCallPermissionUpdate  = "call_permission_update"
)

// Outbound webhook events (the names subscriptions choose).
const (
	HookMessageIncoming = "message:incoming"
	HookMessageSent     = "message:sent"
	HookContactCreated  = "contact:created"
	HookTemplateStatus  = "template:status"
	// A campaign's state changes and its counters (at most about one
	// progress event a second per campaign).
	HookCampaignStatus   = "campaign:status"
	HookCampaignProgress = "campaign:progress"
	HookTransferCreated  = "transfer:created"
	HookTransferAssigned = "transfer:assigned"
	HookTransferResumed  = "transfer:resumed"
)

// Type is a kind of domain event and where it goes: the type of its /ws
// frame and the outbound webhook event it is delivered as ("" for none).
type Type struct {
	Frame string
	Hook  string
}

// The domain events. Adding one is a line here.
var (
	// MessageReceived: a contact's message was stored.
	MessageReceived = Type{Frame: FrameMessageNew, Hook: HookMessageIncoming}
	// MessageQueued: an outgoing message was stored, pending.
	MessageQueued = Type{Frame: FrameMessageNew}
	// MessageSent: the platform accepted an outgoing message.
	MessageSent = Type{Frame: FrameMessageStatus, Hook: HookMessageSent}
	// MessageStatusChanged: any other move of a message's status.
	MessageStatusChanged = Type{Frame: FrameMessageStatus}
	// ContactCreated: a contact was created.
	ContactCreated = Type{Frame: FrameContactNew, Hook: HookContactCreated}
	// ContactUpdated: a contact changed.
	ContactUpdated = Type{Frame: FrameContactUpdated}
	// ContactNoteCreated, ContactNoteUpdated, ContactNoteDeleted: an
	// internal note on a contact was written, edited or removed.
	ContactNoteCreated = Type{Frame: FrameContactNoteCreated}
	ContactNoteUpdated = Type{Frame: FrameContactNoteUpdated}
	ContactNoteDeleted = Type{Frame: FrameContactNoteDeleted}
	// TemplateStatusChanged: a template was submitted, or the platform
	// reported its review status, quality rating or category.
	TemplateStatusChanged = Type{Frame: FrameTemplateStatus, Hook: HookTemplateStatus}
	// CampaignStatusChanged: a campaign moved to another state.
	CampaignStatusChanged = Type{Frame: FrameCampaignStatus, Hook: HookCampaignStatus}
	// CampaignProgress: a campaign's counters moved.
	CampaignProgress = Type{Frame: FrameCampaignProgress, Hook: HookCampaignProgress}
	// TransferCreated, TransferAssigned, TransferResumed: a transfer to
	// human agents was created (its strategy applied), assigned or
	// unassigned (picked, or assigned by a manager), and resumed.
	TransferCreated  = Type{Frame: FrameAgentTransfer, Hook: HookTransferCreated}
	TransferAssigned = Type{Frame: FrameAgentTransferAssign, Hook: HookTransferAssigned}
	TransferResumed  = Type{Frame: FrameAgentTransferResume, Hook: HookTransferResumed}
	// TransferEscalated: a transfer's SLA timer found it late (no first
	// response, nobody assigned, not resolved); its payload names the
	// users to notify.
	TransferEscalated = Type{Frame: FrameAgentTransferEscalated}
	// Calls: a call rang, was answered, ended; a transfer of a call to
	// agents waits, was connected to an agent's browser, ended
	// (completed, abandoned by the caller, not answered in time); the
	// agent held or resumed it; a business-initiated call rang, was
	// answered or rejected; a contact answered a call permission request.
	CallIncoming          = Type{Frame: FrameCallIncoming}
	CallAnswered          = Type{Frame: FrameCallAnswered}
	CallEnded             = Type{Frame: FrameCallEnded}
	CallTransferWaiting   = Type{Frame: FrameCallTransferWaiting}
	CallTransferConnected = Type{Frame: FrameCallTransferConnected}
	CallTransferCompleted = Type{Frame: FrameCallTransferCompleted}
	CallTransferAbandoned = Type{Frame: FrameCallTransferAbandoned}
	CallTransferNoAnswer  = Type{Frame: FrameCallTransferNoAnswer}
	CallHold              = Type{Frame: FrameCallHold}
	CallResumed           = Type{Frame: FrameCallResumed}
	OutgoingCallRinging   = Type{Frame: FrameOutgoingCallRinging}
	OutgoingCallAnswered  = Type{Frame: FrameOutgoingCallAnswered}
	OutgoingCallRejected  = Type{Frame: FrameOutgoingCallRejected}
	CallPermissionUpdate  = Type{Frame: FrameCallPermissionUpdate}
)

// Event is one domain event of an organization. Its payload is encoded
// once, as JSON, for every consumer; outbound webhooks need an object.
type Event struct {
	Type    Type
	OrgID   uuid.UUID
	Payload any
}

// HookEvent is an event as outbound webhook subscriptions receive it.
type HookEvent struct {
	OrgID uuid.UUID
	// Name is the webhook event; Data its payload, a JSON object.
	Name string
	Data json.RawMessage
}

// HookWriter stores outbound webhook deliveries (webhooks.Dispatcher).
// Only Bus.Record calls it: operations record domain events, they do not
// write deliveries themselves.
type HookWriter interface {
	// WriteDeliveries stores, in the transaction ctx carries (if any),
	// one delivery of each event for every active subscription of its
	// organization to it, and queues them once that commits.
	WriteDeliveries(ctx context.Context, evs []HookEvent) error
}

// Record records domain events of the operation whose transaction ctx
// carries (or of no transaction): the outbound webhook deliveries they
// cause are written now, in that transaction, and their /ws frames are
// published through Redis once it commits, together with every other
// frame recorded in it, in order. A rolled-back operation announces
// nothing; a committed one loses no delivery. It fails only when a
// payload cannot be encoded or the deliveries cannot be written.
func (b *Bus) Record(ctx context.Context, evs ...Event) error {
	frames := make([][]byte, 0, len(evs))
	var hooks []HookEvent
	// One encoder for the batch, without HTML escaping (neither /ws
	// clients nor webhook receivers need it); encode copies the payload
	// into the frame.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range evs {
		buf.Reset()
		if err := enc.Encode(e.Payload); err != nil {
			return fmt.Errorf("events: encoding a %s payload: %w", e.Type.Frame+e.Type.Hook, err)
		}
		raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if e.Type.Frame != "" {
			frames = append(frames, encode(e.OrgID, e.Type.Frame, raw))
		}
		if e.Type.Hook != "" && b.hooks != nil {
			hooks = append(hooks, HookEvent{OrgID: e.OrgID, Name: e.Type.Hook, Data: bytes.Clone(raw)})
		}
	}
	if len(hooks) > 0 {
		if err := b.hooks.WriteDeliveries(ctx, hooks); err != nil {
			return err
		}
	}
	b.publishAfterCommit(ctx, frames)
	return nil
}

// pendingFrames are the frames recorded in one transaction.
type pendingFrames struct{ frames [][]byte }

// publishAfterCommit publishes frames once the transaction of ctx commits
// (at once without one). A transaction's frames go out in one pipeline.
func (b *Bus) publishAfterCommit(ctx context.Context, frames [][]byte) {
	if len(frames) == 0 {
		return
	}
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		b.publish(context.WithoutCancel(ctx), frames)
		return
	}
	b.txMu.Lock()
	defer b.txMu.Unlock()
	if p := b.pending[tx]; p != nil {
		p.frames = append(p.frames, frames...)
		return
	}
	p := &pendingFrames{frames: frames}
	b.pending[tx] = p
	take := func() [][]byte {
		b.txMu.Lock()
		defer b.txMu.Unlock()
		delete(b.pending, tx)
		return p.frames
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			if frames := take(); err == nil {
				b.publish(context.WithoutCancel(ctx), frames)
			}
			return err
		})
	})
	tx.OnRollback(func(next ent.Rollbacker) ent.Rollbacker {
		return ent.RollbackFunc(func(ctx context.Context, tx *ent.Tx) error {
			take()
			return next.Rollback(ctx, tx)
		})
	})
}

// publish sends frames to every node in one round trip. A failure is
// logged: the data is stored, only the live notification is lost.
func (b *Bus) publish(ctx context.Context, frames [][]byte) {
	if b.rdb == nil {
		return
	}
	pipe := b.rdb.Pipeline()
	for _, f := range frames {
		pipe.Publish(ctx, b.channel, f)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		b.log.Warn("events: publishing", "count", len(frames), "err", err)
	}
}
