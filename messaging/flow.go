package messaging

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// InteractiveFlow is the interactive type of a form flow message.
const InteractiveFlow = "flow"

// Limits of a flow message, as the platform documents them.
const (
	maxFlowHeader = 60
	maxFlowFooter = 60
	maxFlowCTA    = 30
	maxFlowToken  = 512
	maxFlowScreen = 100
)

// FlowMessage is a form flow sent as an interactive message: a button
// (CTA) opening the platform's flow FlowID. Token identifies this send and
// comes back in the contact's nfm_reply; Action is navigate (to Screen,
// with Data) or data_exchange. LocalFlowID and Name name the local flow.
// Its JSON form is kept under interactive_data.flow.
type FlowMessage struct {
	LocalFlowID uuid.UUID      `json:"local_flow_id"`
	Name        string         `json:"name,omitempty"`
	FlowID      string         `json:"flow_id"`
	Token       string         `json:"flow_token"`
	CTA         string         `json:"flow_cta"`
	Action      string         `json:"flow_action"`
	Screen      string         `json:"screen,omitempty"`
	Data        map[string]any `json:"data,omitempty"`
	Header      string         `json:"header,omitempty"`
	Footer      string         `json:"footer,omitempty"`
}

func (f *FlowMessage) provider(body string) *provider.Flow {
	return &provider.Flow{Header: f.Header, Body: body, Footer: f.Footer, FlowID: f.FlowID, Token: f.Token,
		CTA: f.CTA, Action: f.Action, Screen: f.Screen, Data: f.Data}
}

// SendFlow stores a form flow message for a contact and queues it, from
// accountName (the account the flow belongs to). The caller (package
// flows) decides which flows may be sent. Errors: invalid (body, header,
// footer, CTA, token or screen out of the platform's bounds, an action
// other than navigate or data_exchange, a closed service window, no
// account, an unknown bot source), not_found (contact). A chatbot's send
// names its botSource (messages.bot_source); a person's is empty.
func (s *Service) SendFlow(ctx context.Context, contactID uuid.UUID, accountName, body string, f FlowMessage, source string) (*ent.Message, error) {
	bs, err := botSource(source)
	if err != nil {
		return nil, err
	}
	body, err = valid.RequiredText("body", body, maxInteractiveBody)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		field    string
		v        *string
		max      int
		required bool
	}{
		{"header", &f.Header, maxFlowHeader, false}, {"footer", &f.Footer, maxFlowFooter, false},
		{"cta", &f.CTA, maxFlowCTA, true}, {"flow_token", &f.Token, maxFlowToken, true},
		{"screen", &f.Screen, maxFlowScreen, false}, {"flow_id", &f.FlowID, 100, true},
	} {
		if c.required {
			*c.v, err = valid.RequiredText(c.field, *c.v, c.max)
		} else {
			err = valid.Check(c.field, *c.v, c.max)
		}
		if err != nil {
			return nil, err
		}
	}
	switch f.Action {
	case "", "navigate":
		f.Action = "navigate"
	case "data_exchange":
		f.Screen, f.Data = "", nil
	default:
		return nil, apperr.Invalidf("flow_action must be navigate or data_exchange")
	}
	in := Interactive{Type: InteractiveFlow, Body: body, Flow: &f}
	return s.sendFreeForm(ctx, contactID, accountName, draft{
		kind: TypeInteractive, content: map[string]any{"body": body}, interactive: toMap(in), preview: body, botSource: bs,
	})
}
