package transfers

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/organizationmember"
	"switchboard/ent/teammember"
	"switchboard/ent/transfertimer"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// Escalation is the payload of a transfer:escalated event.
type Escalation struct {
	Transfer *View `json:"transfer"`
	// Reason is response_time (no first response in time), unassigned
	// (nobody took it in time) or resolution_time (still open).
	Reason string `json:"reason"`
	// NotifyUserIDs are the users to notify: sla_escalation_notify_ids'
	// users, and the members of the teams it names.
	NotifyUserIDs []uuid.UUID `json:"notify_user_ids"`
	EscalatedAt   time.Time   `json:"escalated_at"`
}

// act does what a fired timer does to its transfer, locked in the
// transaction of db, and returns the outcome. Messages to the contact are
// sent after the commit (after collects them): a send is never rolled
// back, and a failed send does not undo the timer.
func (s *Service) act(ctx context.Context, db *ent.Client, tm *ent.TransferTimer, t *ent.AgentTransfer, after *[]func()) (string, error) {
	if t.Status != agenttransfer.StatusActive {
		return "transfer_resumed", nil
	}
	st, err := s.settings(ctx, db)
	if err != nil {
		return "", err
	}
	cs := st.stored
	if cs == nil {
		cs = &ent.ChatbotSettings{}
	}
	switch tm.Kind {
	case transfertimer.KindAgentTimeout:
		return s.reassign(ctx, db, tm, t)
	case transfertimer.KindSLAResponse:
		if t.FirstResponseAt != nil {
			return "answered", nil
		}
		s.sendLater(t, cs.SLAWarningMessage, after)
		return "escalated", s.escalate(ctx, db, cs, t, "response_time")
	case transfertimer.KindSLAEscalation:
		if t.AgentID != nil {
			return "assigned", nil
		}
		return "escalated", s.escalate(ctx, db, cs, t, "unassigned")
	case transfertimer.KindSLAResolution:
		return "escalated", s.escalate(ctx, db, cs, t, "resolution_time")
	case transfertimer.KindSLAAutoClose:
		return "closed", s.closeTransfer(ctx, db, t, cs.SLAAutoCloseMessage, after)
	case transfertimer.KindClientReminder, transfertimer.KindClientAutoClose:
		c, err := db.Contact.Get(ctx, t.ContactID)
		if err != nil {
			return "", err
		}
		if c.LastInboundAt != nil && !c.LastInboundAt.Before(tm.CreatedAt) {
			return "client_replied", nil
		}
		if tm.Kind == transfertimer.KindClientReminder {
			s.sendLater(t, cs.ClientReminderMessage, after)
			return "reminded", nil
		}
		return "closed", s.closeTransfer(ctx, db, t, cs.ClientAutoCloseMessage, after)
	}
	return "unknown_kind", nil
}

// reassign moves a transfer whose agent did not answer within the team's
// per_agent_timeout_secs to another available member by the team's
// strategy, and starts that member's timeout. With nobody else available
// the agent keeps it.
func (s *Service) reassign(ctx context.Context, db *ent.Client, tm *ent.TransferTimer, t *ent.AgentTransfer) (string, error) {
	switch {
	case t.FirstResponseAt != nil:
		return "answered", nil
	case t.AgentID == nil || tm.AgentID == nil || *t.AgentID != *tm.AgentID:
		return "agent_changed", nil
	case t.TeamID == nil:
		return "no_team", nil
	}
	tmm, err := db.Team.Get(ctx, *t.TeamID)
	if err != nil {
		return "", apperr.Wrap(err, "team")
	}
	next, err := s.teamPick(ctx, db, tmm, *t.AgentID)
	if err != nil {
		return "", err
	}
	if next == nil {
		return "no_other_agent", nil
	}
	now := s.now()
	t, err = db.AgentTransfer.UpdateOne(t).SetAgentID(*next).SetAssignedAt(now).Save(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "transfer")
	}
	if tmm.PerAgentTimeoutSecs > 0 {
		due := now.Add(time.Duration(tmm.PerAgentTimeoutSecs) * time.Second)
		if err := s.schedule(ctx, db, t, transfertimer.KindAgentTimeout, due, next); err != nil {
			return "", err
		}
	}
	v, err := s.view(ctx, db, t.ID)
	if err != nil {
		return "", err
	}
	return "reassigned", s.record(ctx, events.TransferAssigned, v)
}

// escalate records a transfer:escalated event naming the users to notify.
func (s *Service) escalate(ctx context.Context, db *ent.Client, cs *ent.ChatbotSettings, t *ent.AgentTransfer, reason string) error {
	notify, err := s.notifyIDs(ctx, db, cs.SLAEscalationNotifyIds)
	if err != nil {
		return err
	}
	v, err := s.view(ctx, db, t.ID)
	if err != nil {
		return err
	}
	if s.Events == nil {
		return nil
	}
	return s.Events.Record(ctx, events.Event{Type: events.TransferEscalated, OrgID: t.OrganizationID, Payload: Escalation{
		Transfer: v, Reason: reason, NotifyUserIDs: notify, EscalatedAt: s.now(),
	}})
}

// notifyIDs resolves sla_escalation_notify_ids: ids of the organization's
// members, and of its teams (their members); others are skipped.
func (s *Service) notifyIDs(ctx context.Context, db *ent.Client, raw []string) ([]uuid.UUID, error) {
	ids := make([]uuid.UUID, 0, len(raw))
	for _, r := range raw {
		if id, err := uuid.Parse(r); err == nil {
			ids = append(ids, id)
		}
	}
	out := []uuid.UUID{}
	if len(ids) == 0 {
		return out, nil
	}
	seen := map[uuid.UUID]bool{}
	members, err := db.OrganizationMember.Query().Where(organizationmember.UserIDIn(ids...)).
		Select(organizationmember.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "member")
	}
	seats, err := db.TeamMember.Query().Where(teammember.TeamIDIn(ids...)).Select(teammember.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team member")
	}
	for _, m := range append(members, seats...) {
		if id, err := uuid.Parse(m); err == nil && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// closeTransfer resumes the chatbot on a transfer nobody closed in time
// (no resumed_by), cancels its other timers and sends msg to the contact.
func (s *Service) closeTransfer(ctx context.Context, db *ent.Client, t *ent.AgentTransfer, msg string, after *[]func()) error {
	if err := db.AgentTransfer.UpdateOne(t).SetStatus(agenttransfer.StatusResumed).SetResumedAt(s.now()).Exec(ctx); err != nil {
		return apperr.Wrap(err, "transfer")
	}
	if err := s.cancelTimers(ctx, db, t.ID); err != nil {
		return err
	}
	v, err := s.view(ctx, db, t.ID)
	if err != nil {
		return err
	}
	s.sendLater(t, msg, after)
	return s.record(ctx, events.TransferResumed, v)
}

// sendLater sends msg (when not empty) to the transfer's contact after the
// commit, as the system; a failure (a closed service window) is logged.
func (s *Service) sendLater(t *ent.AgentTransfer, msg string, after *[]func()) {
	if msg == "" || s.Sender == nil {
		return
	}
	*after = append(*after, func() {
		ctx := viewer.SystemContext(context.Background(), t.OrganizationID)
		if _, err := s.Sender.SendText(ctx, t.ContactID, t.ChatAccount, msg); err != nil {
			s.log().Warn("a transfer timer's message to the contact was not sent", "transfer_id", t.ID, "err", err)
		}
	})
}

// Outgoing follows an outgoing message in its transaction (register it
// with messaging.Service.OnOutgoing): the first message of the assigned
// agent to the contact of an active transfer records first_response_at
// and cancels the timers that waited for it (the agent's timeout, the SLA
// response and escalation); any person's message restarts the client
// timers when client_reminder_enabled. Messages of the system (the bot,
// the timers) change nothing.
func (s *Service) Outgoing(ctx context.Context, db *ent.Client, m *ent.Message) error {
	if m.SentByUserID == nil {
		return nil
	}
	t, err := db.AgentTransfer.Query().
		Where(agenttransfer.ContactID(m.ContactID), agenttransfer.StatusEQ(agenttransfer.StatusActive)).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, "transfer")
	}
	if t.AgentID != nil && *t.AgentID == *m.SentByUserID && t.FirstResponseAt == nil {
		// The transfer's row first (locked by the update), then its
		// timers, as FireTimer locks them.
		n, err := db.AgentTransfer.Update().Where(agenttransfer.ID(t.ID), agenttransfer.FirstResponseAtIsNil(),
			agenttransfer.AgentID(*m.SentByUserID)).SetFirstResponseAt(m.CreatedAt).Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "transfer")
		}
		if n == 1 {
			if err := s.cancelTimers(ctx, db, t.ID, transfertimer.KindAgentTimeout,
				transfertimer.KindSLAResponse, transfertimer.KindSLAEscalation); err != nil {
				return err
			}
		}
	}
	st, err := s.settings(ctx, db)
	if err != nil || st.stored == nil || !st.stored.ClientReminderEnabled {
		return err
	}
	cs := st.stored
	if err := s.cancelTimers(ctx, db, t.ID, transfertimer.KindClientReminder, transfertimer.KindClientAutoClose); err != nil {
		return err
	}
	now := s.now()
	if cs.ClientReminderMinutes > 0 {
		if err := s.schedule(ctx, db, t, transfertimer.KindClientReminder, now.Add(time.Duration(cs.ClientReminderMinutes)*time.Minute), nil); err != nil {
			return err
		}
	}
	if cs.ClientAutoCloseMinutes > 0 {
		return s.schedule(ctx, db, t, transfertimer.KindClientAutoClose, now.Add(time.Duration(cs.ClientAutoCloseMinutes)*time.Minute), nil)
	}
	return nil
}
