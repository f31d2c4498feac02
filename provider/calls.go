package provider

import (
	"context"
	"fmt"
	"net/http"
)

// Call actions of the Calling API (POST /{phone_id}/calls).
const (
	CallConnect   = "connect"    // business-initiated call, with an SDP offer
	CallPreAccept = "pre_accept" // an incoming call's media path, before accepting
	CallAccept    = "accept"     // answer an incoming call
	CallReject    = "reject"     // refuse an incoming call
	CallTerminate = "terminate"  // end a call
)

// callSession is the SDP of a call action.
type callSession struct {
	SDPType string `json:"sdp_type"`
	SDP     string `json:"sdp"`
}

type callAction struct {
	MessagingProduct string       `json:"messaging_product"`
	CallID           string       `json:"call_id,omitempty"`
	To               string       `json:"to,omitempty"`
	Action           string       `json:"action"`
	Session          *callSession `json:"session,omitempty"`
	CallbackData     string       `json:"biz_opaque_callback_data,omitempty"`
}

// AnswerCall pre-accepts or accepts (action CallPreAccept or CallAccept)
// the incoming call callID with the SDP answer to its offer.
func (c *Client) AnswerCall(ctx context.Context, acc Account, callID, action, sdpAnswer string) error {
	if action != CallPreAccept && action != CallAccept {
		return fmt.Errorf("%w: call action %q does not answer", ErrInvalid, action)
	}
	if callID == "" || sdpAnswer == "" {
		return fmt.Errorf("%w: a call id and an SDP answer are required", ErrInvalid)
	}
	return c.callAction(ctx, acc, callAction{CallID: callID, Action: action,
		Session: &callSession{SDPType: "answer", SDP: sdpAnswer}})
}

// EndCall rejects (CallReject, a call not yet accepted) or terminates
// (CallTerminate) the call callID.
func (c *Client) EndCall(ctx context.Context, acc Account, callID, action string) error {
	if action != CallReject && action != CallTerminate {
		return fmt.Errorf("%w: call action %q does not end a call", ErrInvalid, action)
	}
	if callID == "" {
		return fmt.Errorf("%w: a call id is required", ErrInvalid)
	}
	return c.callAction(ctx, acc, callAction{CallID: callID, Action: action})
}

// StartCall calls the WhatsApp user to with the SDP offer of the business's
// leg and returns the platform's call id. The user must have granted the
// business call permission. The answer arrives on the calls webhook.
func (c *Client) StartCall(ctx context.Context, acc Account, to, sdpOffer, callbackData string) (string, error) {
	if to == "" || sdpOffer == "" {
		return "", fmt.Errorf("%w: a recipient and an SDP offer are required", ErrInvalid)
	}
	if len(callbackData) > maxCallbackData {
		return "", fmt.Errorf("%w: callback data longer than %d characters", ErrInvalid, maxCallbackData)
	}
	r, err := c.callRequest(acc, callAction{To: to, Action: CallConnect,
		Session: &callSession{SDPType: "offer", SDP: sdpOffer}, CallbackData: callbackData})
	if err != nil {
		return "", err
	}
	var a struct {
		Calls []struct {
			ID string `json:"id"`
		} `json:"calls"`
	}
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return "", err
	}
	if len(a.Calls) == 0 || a.Calls[0].ID == "" {
		return "", fmt.Errorf("%w: %s: no call id", ErrUnexpectedResponse, r.what)
	}
	return a.Calls[0].ID, nil
}

func (c *Client) callAction(ctx context.Context, acc Account, a callAction) error {
	r, err := c.callRequest(acc, a)
	if err != nil {
		return err
	}
	return c.doSuccess(ctx, acc, r)
}

func (c *Client) callRequest(acc Account, a callAction) (*request, error) {
	u, err := c.endpoint(acc, nil, acc.PhoneID, "calls")
	if err != nil {
		return nil, err
	}
	a.MessagingProduct = "whatsapp"
	r, err := jsonRequest(http.MethodPost, u, a)
	if err != nil {
		return nil, err
	}
	r.what = "POST /{phone_id}/calls " + a.Action
	return r, nil
}
