package providertest

// Fault injection and send counting for message sends
// (POST /{phone}/messages, read receipts excluded), and the fake served
// standalone on a port for benchmarks.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ThroughputReached is the Cloud API's answer to sends beyond the phone
// number's throughput, as its error code table documents it: HTTP 400, code
// 130429 "Rate limit hit". (RateLimited is the same error with HTTP 429.)
func ThroughputReached() Response {
	return GraphError(http.StatusBadRequest, 130429, "(#130429) Rate limit hit",
		"Message failed to send because there were too many messages sent from this phone number in a short period of time")
}

// PairRateLimited is the answer to too many messages to one recipient in a
// short time: HTTP 400, code 131056.
func PairRateLimited() Response {
	return GraphError(http.StatusBadRequest, 131056, "(#131056) (Business Account, Consumer Account) pair rate limit hit",
		"Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time")
}

// ServerError is the Cloud API's unknown failure: HTTP 500, code 131000
// "Something went wrong".
func ServerError() Response {
	return GraphError(http.StatusInternalServerError, 131000, "(#131000) Something went wrong",
		"Message failed to send due to an unknown error. When setting a business public key, it either failed to calculate the signature, call the GraphQL endpoint, or the GraphQL endpoint returned an error.")
}

// Fault makes the fake answer message sends (POST /{phone}/messages, not
// read receipts) otherwise than by accepting them. Faults apply before
// Script and Handle answers; the first matching fault that fires answers.
type Fault struct {
	// Response is the answer, such as ThroughputReached(), PairRateLimited(),
	// ServerError() or Unavailable(). Zero (Status 0 and no Body): the send is
	// accepted as usual, after Delay.
	Response Response
	// Delay holds the answer this long (a slow platform). The request's
	// context ending (the client timing out) cuts it short.
	Delay time.Duration
	// To limits the fault to sends to this recipient (the "to" field as
	// sent); empty matches every recipient.
	To string
	// Times is how many matching sends the fault answers before it is
	// removed; zero means no limit.
	Times int
	// Fraction is the share of matching sends answered, 0 < Fraction <= 1;
	// zero means all. The choice is deterministic and even: with 0.1 every
	// tenth matching send.
	Fraction float64
}

// SendCount counts the message sends of one recipient or callback datum.
type SendCount struct {
	// Received is every send request that reached the fake.
	Received int `json:"received"`
	// Accepted is the sends answered 200 with a message id by the default
	// handler (a Handle or Script answer is not counted).
	Accepted int `json:"accepted"`
}

// SendStats are the fake's send counts since it started or ResetSends.
type SendStats struct {
	Received int `json:"received"`
	Accepted int `json:"accepted"`
	// Faulted is the sends a Fault answered (with an error or after a delay).
	Faulted int `json:"faulted"`
	// ByRecipient is by "to" as sent; ByCallback by biz_opaque_callback_data
	// (sends without it are not counted there).
	ByRecipient map[string]SendCount `json:"by_recipient,omitempty"`
	ByCallback  map[string]SendCount `json:"by_callback,omitempty"`
}

// AcceptedTwice returns the keys of counts accepted more than once, sorted.
func AcceptedTwice(counts map[string]SendCount) []string {
	var out []string
	for k, c := range counts {
		if c.Accepted > 1 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// sendState is the part of Fake this file owns.
type sendState struct {
	mu          sync.Mutex
	faults      []*activeFault
	received    int
	accepted    int
	faulted     int
	byRecipient map[string]*SendCount
	byCallback  map[string]*SendCount

	// unrecorded stops Requests and Sent from keeping each request, so
	// that a long benchmark's memory is the counters only.
	unrecorded atomic.Bool
}

type activeFault struct {
	Fault
	matched int // matching sends seen, for Fraction
	fired   int
}

// AddFault installs a fault; see Fault.
func (f *Fake) AddFault(ft Fault) {
	s := &f.sends
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &activeFault{Fault: ft})
}

// FailNext answers the next n message sends with r.
func (f *Fake) FailNext(n int, r Response) { f.AddFault(Fault{Response: r, Times: n}) }

// FailFraction answers the share p of message sends with r, evenly spread.
func (f *Fake) FailFraction(p float64, r Response) { f.AddFault(Fault{Response: r, Fraction: p}) }

// FailRecipient answers every message send to `to` with r.
func (f *Fake) FailRecipient(to string, r Response) { f.AddFault(Fault{Response: r, To: to}) }

// SlowSends delays the answer to every message send by d (accepting it).
func (f *Fake) SlowSends(d time.Duration) { f.AddFault(Fault{Delay: d}) }

// ClearFaults removes every fault.
func (f *Fake) ClearFaults() {
	s := &f.sends
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// SetRecording turns the keeping of every request (Requests, Find, Sent)
// on or off; it is on by default. A benchmark turns it off so that the
// fake's memory does not grow with each request; the send counts are kept
// either way.
func (f *Fake) SetRecording(on bool) { f.sends.unrecorded.Store(!on) }

// SendStats returns the send counts, with the per-recipient and
// per-callback maps copied.
func (f *Fake) SendStats() SendStats {
	s := &f.sends
	s.mu.Lock()
	defer s.mu.Unlock()
	st := SendStats{Received: s.received, Accepted: s.accepted, Faulted: s.faulted,
		ByRecipient: make(map[string]SendCount, len(s.byRecipient)), ByCallback: make(map[string]SendCount, len(s.byCallback))}
	for k, c := range s.byRecipient {
		st.ByRecipient[k] = *c
	}
	for k, c := range s.byCallback {
		st.ByCallback[k] = *c
	}
	return st
}

// ResetSends sets every send count to zero (faults stay).
func (f *Fake) ResetSends() {
	s := &f.sends
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received, s.accepted, s.faulted = 0, 0, 0
	s.byRecipient, s.byCallback = nil, nil
}

// sendEndpoint matches a message send's path without version.
var sendEndpoint = regexp.MustCompile(`^/[^/]+/messages$`)

// sendFields are the fields of a send the counting needs.
type sendFields struct {
	To       string `json:"to"`
	Status   string `json:"status"`
	Callback string `json:"biz_opaque_callback_data"`
}

// interceptSend counts a message send and answers it when a fault fires.
// It reports whether it answered.
func (f *Fake) interceptSend(w http.ResponseWriter, r *http.Request, rec Request) bool {
	if rec.Method != http.MethodPost || rec.Version == "" || !sendEndpoint.MatchString(rec.Endpoint) {
		return false
	}
	var m sendFields
	if json.Unmarshal(rec.Body, &m) != nil || m.Status != "" || m.To == "" {
		return false // malformed, or a read receipt: the default answer
	}

	s := &f.sends
	s.mu.Lock()
	s.received++
	count(&s.byRecipient, m.To).Received++
	if m.Callback != "" {
		count(&s.byCallback, m.Callback).Received++
	}
	var fire *Fault
	for i := 0; i < len(s.faults); i++ {
		ft := s.faults[i]
		if ft.To != "" && ft.To != m.To {
			continue
		}
		ft.matched++
		if p := ft.Fraction; p > 0 && p < 1 && math.Floor(float64(ft.matched)*p) == math.Floor(float64(ft.matched-1)*p) {
			continue
		}
		ft.fired++
		answer := ft.Fault
		fire = &answer
		if ft.Times > 0 && ft.fired >= ft.Times {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
		}
		break
	}
	if fire != nil {
		s.faulted++
	}
	s.mu.Unlock()

	if fire == nil {
		return false
	}
	if fire.Delay > 0 {
		t := time.NewTimer(fire.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			return true // the client is gone
		case <-t.C:
		}
	}
	if fire.Response.Status == 0 && fire.Response.Body == nil {
		return false // slow, then the usual answer
	}
	fire.Response.write(w)
	return true
}

// countAccepted counts a send the default handler accepted.
func (f *Fake) countAccepted(m map[string]any) {
	to, _ := m["to"].(string)
	cb, _ := m["biz_opaque_callback_data"].(string)
	s := &f.sends
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accepted++
	count(&s.byRecipient, to).Accepted++
	if cb != "" {
		count(&s.byCallback, cb).Accepted++
	}
}

func count(m *map[string]*SendCount, k string) *SendCount {
	if *m == nil {
		*m = map[string]*SendCount{}
	}
	c, ok := (*m)[k]
	if !ok {
		c = &SendCount{}
		(*m)[k] = c
	}
	return c
}

// NewStandalone returns a fake without a server, to be served on a chosen
// address with Handler (bench/fakegraph). baseURL is where it will be
// reachable (media URLs point there). Client does not work on it; point a
// provider client at baseURL.
func NewStandalone(baseURL string) *Fake {
	f := newFake()
	f.URL = baseURL
	return f
}

// ControlPrefix starts the paths of the control endpoints Handler adds.
const ControlPrefix = "/_fake/"

// Handler serves the fake's Graph API and, under ControlPrefix, endpoints
// to steer it from another process (no token needed):
//
//	GET    /_fake/sends        SendStats totals, how many recipients and callbacks were accepted
//	                           twice (and the first 100 of each, sorted); ?full=1 adds every
//	                           recipient's and callback's counts
//	DELETE /_fake/sends        ResetSends
//	POST   /_fake/faults       AddFault from {"code": 130429|131056|500|503, "times", "fraction",
//	                           "to", "delay": "250ms"} (code 0: a delay only)
//	DELETE /_fake/faults       ClearFaults
//	POST   /_fake/phone        SetPhoneNumber, e.g. {"messaging_limit_tier": "TIER_1K"}
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+ControlPrefix+"sends", func(w http.ResponseWriter, r *http.Request) {
		st := f.SendStats()
		twiceR, twiceC := AcceptedTwice(st.ByRecipient), AcceptedTwice(st.ByCallback)
		out := map[string]any{
			"received": st.Received, "accepted": st.Accepted, "faulted": st.Faulted,
			"recipients": len(st.ByRecipient), "callbacks": len(st.ByCallback),
			"recipients_accepted_twice": len(twiceR), "callbacks_accepted_twice": len(twiceC),
			"recipients_accepted_twice_sample": sample(twiceR), "callbacks_accepted_twice_sample": sample(twiceC),
		}
		if r.URL.Query().Get("full") == "1" {
			out["by_recipient"], out["by_callback"] = st.ByRecipient, st.ByCallback
		}
		JSON(http.StatusOK, out).write(w)
	})
	mux.HandleFunc("DELETE "+ControlPrefix+"sends", func(w http.ResponseWriter, r *http.Request) {
		f.ResetSends()
		JSON(http.StatusOK, map[string]any{"success": true}).write(w)
	})
	mux.HandleFunc("POST "+ControlPrefix+"faults", func(w http.ResponseWriter, r *http.Request) {
		ft, err := decodeFault(r.Body)
		if err != nil {
			InvalidParameter(err.Error()).write(w)
			return
		}
		f.AddFault(ft)
		JSON(http.StatusOK, map[string]any{"success": true}).write(w)
	})
	mux.HandleFunc("DELETE "+ControlPrefix+"faults", func(w http.ResponseWriter, r *http.Request) {
		f.ClearFaults()
		JSON(http.StatusOK, map[string]any{"success": true}).write(w)
	})
	mux.HandleFunc("POST "+ControlPrefix+"phone", func(w http.ResponseWriter, r *http.Request) {
		var fields map[string]any
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&fields); err != nil {
			InvalidParameter("body must be a JSON object").write(w)
			return
		}
		f.SetPhoneNumber(fields)
		JSON(http.StatusOK, map[string]any{"success": true}).write(w)
	})
	mux.Handle("/", http.HandlerFunc(f.serve))
	return mux
}

// sample returns at most the first 100 of s, never nil.
func sample(s []string) []string {
	return append([]string{}, s[:min(len(s), 100)]...)
}

// faultRequest is the JSON form of a Fault for the control endpoint.
type faultRequest struct {
	Code     int     `json:"code"`
	Times    int     `json:"times"`
	Fraction float64 `json:"fraction"`
	To       string  `json:"to"`
	Delay    string  `json:"delay"`
}

// decodeFault reads a fault for the control endpoint.
func decodeFault(body io.Reader) (Fault, error) {
	var fr faultRequest
	dec := json.NewDecoder(io.LimitReader(body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fr); err != nil {
		return Fault{}, fmt.Errorf("fault: %w", err)
	}
	ft := Fault{Times: fr.Times, Fraction: fr.Fraction, To: fr.To}
	if fr.Times < 0 || fr.Fraction < 0 || fr.Fraction > 1 || math.IsNaN(fr.Fraction) {
		return Fault{}, fmt.Errorf("fault: times must be >= 0 and fraction in [0, 1]")
	}
	if fr.Delay != "" {
		d, err := time.ParseDuration(fr.Delay)
		if err != nil || d < 0 || d > time.Minute {
			return Fault{}, fmt.Errorf("fault: delay must be a duration of at most 1m, got %q", fr.Delay)
		}
		ft.Delay = d
	}
	switch fr.Code {
	case 0:
		if ft.Delay == 0 {
			return Fault{}, fmt.Errorf("fault: give a code or a delay")
		}
	case 130429:
		ft.Response = ThroughputReached()
	case 131056:
		ft.Response = PairRateLimited()
	case 500:
		ft.Response = ServerError()
	case 503:
		ft.Response = Unavailable()
	default:
		return Fault{}, fmt.Errorf("fault: code must be 130429, 131056, 500 or 503, got %s", strconv.Itoa(fr.Code))
	}
	return ft, nil
}
