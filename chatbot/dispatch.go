package chatbot

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/messaging"
)

// turn is one incoming message being handled, in the transaction of db
// (ctx carries it and the organization's system viewer).
type turn struct {
	ctx      context.Context
	b        *Bot
	db       *ent.Client
	msg      *ent.Message
	settings *ent.ChatbotSettings
	text     string
	buttonID string
	loc      *time.Location
}

// dispatch answers one message, in this order: the chatbot off or a
// human transfer active: nothing; outside business hours (unless
// automated replies are allowed then): the out-of-hours message, once per
// closed period and contact (later messages get nothing); an
// active session: its flow goes on; a flow's trigger keyword: that flow
// starts; a keyword rule (by priority): its answer; AI when enabled; else
// the greeting (the contact's first message) or the fallback message.
func (b *Bot) dispatch(ctx context.Context, db *ent.Client, m *ent.Message) error {
	st, err := b.Config.Settings(ctx)
	if err != nil || !st.Enabled {
		return err
	}
	transferred, err := db.AgentTransfer.Query().
		Where(agenttransfer.ContactID(m.ContactID), agenttransfer.StatusEQ(agenttransfer.StatusActive)).Exist(ctx)
	if err != nil || transferred {
		return err
	}
	t := &turn{ctx: ctx, b: b, db: db, msg: m, settings: st}
	t.text, t.buttonID = inputOf(m.MessageType, m.Content)
	if st.BusinessHoursEnabled && !st.AllowAutomatedOutsideHours {
		if days := Schedule(st.BusinessHours); !InBusinessHours(days, t.location(), b.now()) {
			told, err := t.toldClosed(ctx, ClosedSince(days, t.location(), b.now()))
			if err != nil || told {
				return err
			}
			return t.sendAs(ctx, message.BotSourceOutOfHours, Reply{Text: st.OutOfHoursMessage})
		}
	}
	handled, err := t.continueSession(ctx)
	if err != nil || handled {
		return err
	}
	flows, err := b.Config.EnabledFlows(ctx)
	if err != nil {
		return err
	}
	if f := FlowForKeyword(flows, t.text, m.ChatAccount); f != nil {
		return t.startFlow(ctx, f)
	}
	rules, err := b.Config.EnabledKeywords(ctx)
	if err != nil {
		return err
	}
	if r := MatchKeyword(rules, t.text); r != nil {
		body, _ := r.ResponseContent["body"].(string)
		return t.sendAs(ctx, message.BotSourceKeyword, Reply{Text: body, Buttons: Buttons(toMaps(r.ResponseContent["buttons"]))})
	}
	if st.AiEnabled && b.replier() != nil {
		if ok, err := t.aiReply(ctx); err != nil || ok {
			return err
		}
	}
	first, err := t.firstMessage(ctx)
	if err != nil {
		return err
	}
	if first && strings.TrimSpace(st.GreetingMessage) != "" {
		return t.sendAs(ctx, message.BotSourceGreeting, Reply{Text: st.GreetingMessage, Buttons: Buttons(st.GreetingButtons)})
	}
	return t.sendAs(ctx, message.BotSourceFallback, Reply{Text: st.FallbackMessage, Buttons: Buttons(st.FallbackButtons)})
}

// inputOf reads a message's text (a typed text, a caption, a button's
// title) and the id of the reply button pressed from its type and content.
func inputOf(typ string, content map[string]any) (text, buttonID string) {
	text, _ = content["body"].(string)
	if typ == "interactive" || typ == "button" {
		buttonID, _ = content["id"].(string)
		if buttonID == "" {
			buttonID, _ = content["payload"].(string)
		}
	}
	return text, buttonID
}

// toldClosed reports whether the contact got the out-of-hours message
// since the closed period began: it goes out once per period, not on
// every message.
func (t *turn) toldClosed(ctx context.Context, since time.Time) (bool, error) {
	return t.db.Message.Query().Where(message.ContactID(t.msg.ContactID), message.DirectionEQ(message.DirectionOutgoing),
		message.BotSourceEQ(message.BotSourceOutOfHours), message.CreatedAtGTE(since)).Exist(ctx)
}

// firstMessage reports whether the message is the contact's first.
func (t *turn) firstMessage(ctx context.Context) (bool, error) {
	earlier, err := t.db.Message.Query().Where(message.ContactID(t.msg.ContactID),
		message.DirectionEQ(message.DirectionIncoming), message.IDNEQ(t.msg.ID),
		message.CreatedAtLTE(t.msg.CreatedAt)).Exist(ctx)
	return !earlier, err
}

// sendAs sends r (its variables substituted) marked with source. A send
// the platform's rules refuse (the service window closed, no account to
// send from) is logged and skipped: it would fail the same way on a retry.
func (t *turn) sendAs(ctx context.Context, source message.BotSource, r Reply) error {
	vars := t.vars(nil)
	r.Text = Substitute(r.Text, vars)
	for i := range r.Buttons {
		r.Buttons[i].Title = Substitute(r.Buttons[i].Title, vars)
	}
	return t.send(ctx, source, r)
}

// send sends r as it is (see sendAs).
func (t *turn) send(ctx context.Context, source message.BotSource, r Reply) error {
	text := strings.TrimSpace(r.Text)
	if text == "" {
		return nil
	}
	o := messaging.Outgoing{Type: messaging.TypeText, Body: text, Account: t.msg.ChatAccount, BotSource: string(source)}
	if len(r.Buttons) > 0 {
		bs := make([]messaging.Button, len(r.Buttons))
		for i, bt := range r.Buttons {
			bs[i] = messaging.Button{ID: bt.ID, Title: bt.Title}
		}
		o.Type, o.Body = messaging.TypeInteractive, ""
		o.Interactive = &messaging.Interactive{Type: messaging.InteractiveButton, Body: text, Buttons: bs}
	}
	_, err := t.b.Messaging.Send(ctx, t.msg.ContactID, o)
	if c := apperr.CodeOf(err); err != nil && (c == apperr.Invalid || c == apperr.NotFound) {
		t.b.log().Warn("chatbot reply not sent", "contact_id", t.msg.ContactID, "source", source, "err", err)
		return nil
	}
	return err
}

// vars are the variables of text sent outside a flow (the contact's
// name and phone) with a session's on top.
func (t *turn) vars(session map[string]any) map[string]any {
	out := make(map[string]any, len(session)+2)
	if c, err := t.msg.Edges.ContactOrErr(); err == nil && c != nil {
		out["name"], out["phone"] = c.Name, c.PhoneNumber
	}
	for k, v := range session {
		out[k] = v
	}
	return out
}

// continueSession gives the message to the contact's active session, if
// any. A session idle past the timeout ends (timeout) and the message is
// handled as a fresh one.
func (t *turn) continueSession(ctx context.Context) (bool, error) {
	s, err := t.db.ChatbotSession.Query().
		Where(chatbotsession.ContactID(t.msg.ContactID), chatbotsession.StatusEQ(chatbotsession.StatusActive)).
		Order(ent.Desc(chatbotsession.FieldLastActivity)).First(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	now := t.b.now()
	if now.Sub(s.LastActivity) > sessionTimeout(t.settings.SessionTimeoutMinutes) {
		return false, t.db.ChatbotSession.UpdateOne(s).SetStatus(chatbotsession.StatusTimeout).SetCompletedAt(now).Exec(ctx)
	}
	if s.CurrentFlowID == nil {
		return false, t.end(ctx, s, SessionCancelled)
	}
	g, err := t.b.graph(ctx, *s.CurrentFlowID)
	if err != nil {
		t.b.log().Warn("chatbot session's flow is gone; session cancelled", "session_id", s.ID, "err", err)
		return false, t.end(ctx, s, SessionCancelled)
	}
	st := &FlowState{FlowID: *s.CurrentFlowID, Graph: g, Step: s.CurrentStep, Vars: s.Variables, Status: SessionActive}
	return true, t.runFlow(ctx, s, st, func(env FlowEnv) error {
		return Continue(ctx, env, st, Input{Text: t.text, ButtonID: t.buttonID})
	})
}

// startFlow opens a session of f for the contact and runs it.
func (t *turn) startFlow(ctx context.Context, f *ent.ChatbotFlow) error {
	g, err := t.b.graph(ctx, f.ID)
	if err != nil {
		t.b.log().Warn("chatbot flow cannot run", "flow_id", f.ID, "err", err)
		return nil
	}
	now := t.b.now()
	s, err := t.db.ChatbotSession.Create().SetContactID(t.msg.ContactID).SetChatAccount(t.msg.ChatAccount).
		SetCurrentFlowID(f.ID).SetStartedAt(now).SetLastActivity(now).Save(ctx)
	if err != nil {
		return err
	}
	// The contact's name and phone are the first variables.
	st := &FlowState{FlowID: f.ID, Graph: g, Vars: t.vars(nil)}
	return t.runFlow(ctx, s, st, func(env FlowEnv) error { return Start(ctx, env, st) })
}

// runFlow runs a step of the session's flow and stores where it stands.
// A flow that cannot go on (a broken expression, a node it cannot run)
// cancels the session and is logged; database errors roll back.
func (t *turn) runFlow(ctx context.Context, s *ent.ChatbotSession, st *FlowState, step func(FlowEnv) error) error {
	env := &flowEnv{t: t, session: s}
	err := step(env)
	var fe *flowError
	switch {
	case errors.As(err, &fe) || (err != nil && apperr.CodeOf(err) != apperr.Internal):
		t.b.log().Warn("chatbot flow stopped; session cancelled", "session_id", s.ID, "err", err)
		st.Status = SessionCancelled
	case err != nil:
		return err
	}
	u := t.db.ChatbotSession.UpdateOne(s).SetCurrentFlowID(st.FlowID).SetCurrentStep(st.Step).
		SetVariables(st.Vars).SetLastActivity(t.b.now())
	if st.Status != SessionActive {
		u.SetStatus(chatbotsession.Status(st.Status)).SetCompletedAt(t.b.now())
	}
	return u.Exec(ctx)
}

func (t *turn) end(ctx context.Context, s *ent.ChatbotSession, status string) error {
	return t.db.ChatbotSession.UpdateOne(s).SetStatus(chatbotsession.Status(status)).SetCompletedAt(t.b.now()).Exec(ctx)
}

// graph returns a flow's parsed graph, cached by the flow's id and update
// time.
func (b *Bot) graph(ctx context.Context, id uuid.UUID) (*Graph, error) {
	f, err := b.Config.GetFlow(ctx, id)
	if err != nil {
		return nil, err
	}
	if !f.Enabled {
		return nil, &flowError{"the flow " + f.Name + " is disabled"}
	}
	key := id.String() + "@" + f.UpdatedAt.String()
	if g, ok := b.graphs.Load(key); ok {
		return g.(*Graph), nil
	}
	g, err := ParseGraph(f.Graph)
	if err != nil {
		return nil, &flowError{err.Error()}
	}
	b.graphs.Store(key, g)
	return g, nil
}

// flowError is a flow that cannot go on for a reason of its own
// configuration (not a failure of the database).
type flowError struct{ msg string }

func (e *flowError) Error() string { return "chatbot: " + e.msg }
