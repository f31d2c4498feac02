package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// The Calling API of the fake (POST /{phone_id}/calls): it checks each
// action's shape as the platform documents it, keeps every accepted action
// in order, and gives business-initiated calls their ids. A test plays the
// WhatsApp user's side: it reads the SDP the server sent (WaitCallAction)
// and posts the calls webhook itself.

// CallAction is one call action the fake accepted.
type CallAction struct {
	Phone   string
	CallID  string // the call's id (for connect, the id the fake gave)
	To      string // connect only
	Action  string
	SDPType string
	SDP     string
}

type callStore struct {
	actions []CallAction
	// requests counts every well-formed action received, refused ones
	// included, by call id and action.
	requests map[[2]string]int
	// changed is closed and replaced whenever an action is recorded.
	changed chan struct{}
	// refuse answers the next actions of a call id with this error.
	refuse map[string]Response
}

var callActions = map[string]string{
	"connect": "offer", "pre_accept": "answer", "accept": "answer", "reject": "", "terminate": "",
}

func (f *Fake) callRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /{phone}/calls", f.callAction)
}

func (f *Fake) callAction(w http.ResponseWriter, r *http.Request) {
	var m struct {
		MessagingProduct string `json:"messaging_product"`
		CallID           string `json:"call_id"`
		To               string `json:"to"`
		Action           string `json:"action"`
		Session          *struct {
			SDPType string `json:"sdp_type"`
			SDP     string `json:"sdp"`
		} `json:"session"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		InvalidParameter("Request body is not a JSON object").write(w)
		return
	}
	sdpType, known := callActions[m.Action]
	switch {
	case m.MessagingProduct != "whatsapp":
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter messaging_product is required.", "").write(w)
		return
	case !known:
		InvalidParameter(fmt.Sprintf("Invalid action %q", m.Action)).write(w)
		return
	case m.Action == "connect" && m.To == "":
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter to is required.", "").write(w)
		return
	case m.Action != "connect" && m.CallID == "":
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter call_id is required.", "").write(w)
		return
	case sdpType != "" && (m.Session == nil || m.Session.SDPType != sdpType || m.Session.SDP == ""):
		InvalidParameter(fmt.Sprintf("session with sdp_type %s and an sdp is required for %s", sdpType, m.Action)).write(w)
		return
	}
	a := CallAction{Phone: r.PathValue("phone"), CallID: m.CallID, To: m.To, Action: m.Action}
	if m.Session != nil {
		a.SDPType, a.SDP = m.Session.SDPType, m.Session.SDP
	}
	if m.Action == "connect" {
		a.CallID = fmt.Sprintf("wacid.HBgL%012d", f.newID())
	}
	f.mu.Lock()
	if f.calls.requests == nil {
		f.calls.requests = map[[2]string]int{}
	}
	f.calls.requests[[2]string{a.CallID, a.Action}]++
	if resp, ok := f.calls.refuse[a.CallID]; ok {
		f.mu.Unlock()
		resp.write(w)
		return
	}
	f.calls.actions = append(f.calls.actions, a)
	if f.calls.changed != nil {
		close(f.calls.changed)
	}
	f.calls.changed = make(chan struct{})
	f.mu.Unlock()
	if m.Action == "connect" {
		JSON(http.StatusOK, map[string]any{"messaging_product": "whatsapp", "calls": []any{map[string]any{"id": a.CallID}}}).write(w)
		return
	}
	JSON(http.StatusOK, map[string]any{"messaging_product": "whatsapp", "success": true}).write(w)
}

// CallActions returns the call actions accepted so far, in order.
func (f *Fake) CallActions() []CallAction {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]CallAction(nil), f.calls.actions...)
}

// CallRequests is how many action requests on callID the fake received,
// whether it accepted or refused them (RefuseCall): a server that ends a
// call twice, or after the platform ended it, shows here.
func (f *Fake) CallRequests(callID, action string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls.requests[[2]string{callID, action}]
}

// RefuseCall answers every later action on callID with resp.
func (f *Fake) RefuseCall(callID string, resp Response) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls.refuse == nil {
		f.calls.refuse = map[string]Response{}
	}
	f.calls.refuse[callID] = resp
}

// WaitCallAction waits up to timeout for an accepted action of the given
// kind whose call id is callID ("" matches any) and returns it; the test
// fails if none comes.
func (f *Fake) WaitCallAction(tb testing.TB, callID, action string, timeout time.Duration) CallAction {
	tb.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		for _, a := range f.calls.actions {
			if a.Action == action && (callID == "" || a.CallID == callID) {
				f.mu.Unlock()
				return a
			}
		}
		if f.calls.changed == nil {
			f.calls.changed = make(chan struct{})
		}
		changed := f.calls.changed
		f.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			tb.Fatalf("providertest: no %s call action for call %q within %s; actions: %+v", action, callID, timeout, f.CallActions())
			return CallAction{}
		}
	}
}
