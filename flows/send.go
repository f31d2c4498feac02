package flows

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/formflow"
	"switchboard/messaging"
)

// SendInput is a form flow to send to a contact. Flow is the local flow's
// id or its platform id (as the chatbot's chat_flow node names it). Body
// and CTA are required; Screen defaults to the flow's first screen;
// Token defaults to a fresh one (it comes back in the contact's reply).
type SendInput struct {
	ContactID uuid.UUID
	Flow      string
	Header    string
	Body      string
	Footer    string
	CTA       string
	Action    string
	Screen    string
	Data      map[string]any
	Token     string
	// BotSource marks a chatbot's send (messages.bot_source, "flow" for
	// a chat_flow node); empty for a person's.
	BotSource string
}

// Send sends a PUBLISHED flow to a contact as an interactive flow
// message from the flow's account. Drafts are not sent (the spec offers
// no draft mode) and deprecated or deleted flows cannot be sent. Errors:
// invalid (a flow that is not published; what messaging.SendFlow
// refuses), not_found (flow or contact).
func (s *Service) Send(ctx context.Context, in SendInput) (*ent.Message, error) {
	q := s.live(ctx)
	if id, err := uuid.Parse(in.Flow); err == nil {
		q = q.Where(formflow.ID(id))
	} else {
		q = q.Where(formflow.ProviderFlowID(in.Flow))
	}
	if in.Flow == "" {
		return nil, apperr.Invalidf("flow is required")
	}
	f, err := q.First(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, what)
	}
	switch f.Status {
	case formflow.StatusDEPRECATED:
		return nil, apperr.Invalidf("flow %q is deprecated and cannot be sent", f.Name)
	case formflow.StatusDRAFT:
		return nil, apperr.Invalidf("flow %q is a draft: publish it before sending it", f.Name)
	}
	if s.Messaging == nil {
		return nil, apperr.New(apperr.Internal, "messaging is not configured")
	}
	screen := in.Screen
	if screen == "" && in.Action != "data_exchange" {
		if ss := screensOf(f.FlowJSON); len(ss) > 0 {
			screen, _ = ss[0]["id"].(string)
		}
	}
	token := in.Token
	if token == "" {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		token = "flow-" + f.ID.String() + "-" + hex.EncodeToString(b)
	}
	return s.Messaging.SendFlow(ctx, in.ContactID, f.ChatAccount, in.Body, messaging.FlowMessage{
		LocalFlowID: f.ID, Name: f.Name, FlowID: f.ProviderFlowID, Token: token, CTA: in.CTA, Action: in.Action,
		Screen: screen, Data: in.Data, Header: in.Header, Footer: in.Footer,
	}, in.BotSource)
}
