package ivr

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Call is the live call a graph runs on (implemented over the media
// engine by the call control).
type Call interface {
	// Play plays p (its audio file, else its text spoken) and returns
	// when it has been played, or early with the key pressed when p is
	// interruptible (0 when none was). The key is consumed: it does not
	// arrive on Digits too.
	Play(ctx context.Context, p Prompt) (interrupted rune, err error)
	// Digits delivers the caller's DTMF key presses.
	Digits() <-chan rune
	// Transfer hands the caller to the team (or agent; "" for any) and
	// blocks until the transfer is completed, no_answer or abandoned.
	Transfer(ctx context.Context, teamID, agentID string) (outcome string, err error)
	// Hangup ends the call.
	Hangup(ctx context.Context) error
	// HTTP makes an http_callback request (through netguard's client).
	HTTP(ctx context.Context, req HTTPRequest) (status int, body []byte, err error)
}

// HTTPRequest is an http_callback node's request, variables filled in.
type HTTPRequest struct {
	Method  string
	URL     string
	Headers map[string]string
	Body    string
	Timeout time.Duration
}

// RunOptions are the facts of the call a graph runs on.
type RunOptions struct {
	CallID      string
	CallerPhone string
	// Variables are carried over from an earlier flow of the same call
	// (goto_flow: pass the previous Result's Variables).
	Variables map[string]string
	// Location is the organization's time zone for timing nodes (UTC
	// when nil).
	Location *time.Location
	// Now is the clock for timing nodes (time.Now when nil).
	Now func() time.Time
	// TimeScale multiplies every wait for a key (tests run 10 s menus in
	// 10 ms with 0.001); 0 means 1.
	TimeScale float64
	// MaxSteps bounds the nodes one run executes (default 1,000), so a
	// loop without the caller in it cannot run forever.
	MaxSteps int
}

// DefaultMaxSteps is RunOptions.MaxSteps when unset.
const DefaultMaxSteps = 1000

// MaxVariableBytes bounds a stored variable (an HTTP response body).
const MaxVariableBytes = 16 << 10

// End says why a run stopped.
type End string

// The ends of a run.
const (
	// EndHangup: a hangup node ended the call.
	EndHangup End = "hangup"
	// EndTransfer: the caller went to a transfer that has no edge for its
	// outcome (or none at all).
	EndTransfer End = "transfer"
	// EndGotoFlow: the caller continues in Result.GotoFlowID, which the
	// caller of Run loads and runs (at most MaxFlowHops times a call).
	EndGotoFlow End = "goto_flow"
	// EndOfGraph: a node's outcome had no edge. The call is still up.
	EndOfGraph End = "end"
	// EndCancelled: ctx ended (the caller hung up).
	EndCancelled End = "cancelled"
	// EndFailed: a Call method failed or MaxSteps was reached; Run
	// returns the error too.
	EndFailed End = "failed"
)

// Step is one node the caller went through.
type Step struct {
	NodeID  string `json:"node"`
	Type    string `json:"type"`
	Label   string `json:"label"`
	Outcome string `json:"outcome,omitempty"`
	// Digit is the menu key chosen (or the key that interrupted a
	// greeting). Gathered digits are only in Variables.
	Digit string `json:"digit,omitempty"`
}

// Result is what a run did.
type Result struct {
	Steps []Step `json:"steps"`
	// Variables: caller_phone, call_id, last_menu_digit, gather store_as
	// and http_callback response_store_as values.
	Variables map[string]string `json:"variables"`
	End       End               `json:"end"`
	// GotoFlowID is the flow to continue in when End is EndGotoFlow.
	GotoFlowID uuid.UUID `json:"goto_flow_id"`
}

// Run executes g from its entry node on call until a terminal node, an
// outcome without an edge, ctx's end or a failure. It returns the path
// taken in all cases; the error is ctx's when cancelled, a Call method's
// when it failed (End says which). Run does not hang up at EndOfGraph or
// EndGotoFlow: the caller decides.
func Run(ctx context.Context, g *Graph, call Call, opts RunOptions) (Result, error) {
	if g == nil || call == nil {
		return Result{End: EndFailed}, errNothingToRun
	}
	r := newRunner(g, call, opts)
	err := r.run(ctx)
	return r.res, err
}

type runner struct {
	g      *Graph
	call   Call
	opts   RunOptions
	digits <-chan rune
	res    Result
}

func newRunner(g *Graph, call Call, opts RunOptions) *runner {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.TimeScale <= 0 {
		opts.TimeScale = 1
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	vars := make(map[string]string, len(opts.Variables)+4)
	for k, v := range opts.Variables {
		vars[k] = v
	}
	if opts.CallerPhone != "" {
		vars["caller_phone"] = opts.CallerPhone
	}
	if opts.CallID != "" {
		vars["call_id"] = opts.CallID
	}
	return &runner{g: g, call: call, opts: opts, digits: call.Digits(), res: Result{Variables: vars}}
}

// outcome is what executing a node produced: the edge condition to
// follow, or an end that stops the run.
type outcome struct {
	condition string
	digit     string
	end       End
}

func (r *runner) run(ctx context.Context) error {
	id := r.g.EntryNode
	for {
		if err := ctx.Err(); err != nil {
			r.res.End = EndCancelled
			return err
		}
		if len(r.res.Steps) >= r.opts.MaxSteps {
			r.res.End = EndFailed
			return fmt.Errorf("ivr: the run passed %d nodes without ending", r.opts.MaxSteps)
		}
		n := r.g.Node(id)
		if n == nil {
			r.res.End = EndFailed
			return fmt.Errorf("ivr: node %q is not in the graph (was it made by Parse?)", id)
		}
		out, err := r.exec(ctx, n)
		r.res.Steps = append(r.res.Steps, Step{NodeID: n.ID, Type: n.Type, Label: n.Label, Outcome: out.condition, Digit: out.digit})
		if err != nil {
			return r.fail(ctx, n, err)
		}
		if out.end != "" {
			r.res.End = out.end
			return nil
		}
		next, ok := r.next(n, out.condition)
		if !ok {
			r.res.End = EndOfGraph
			if n.Type == NodeTransfer {
				r.res.End = EndTransfer
			}
			return nil
		}
		id = next
	}
}

// next follows the edge for condition; a menu's timeout falls back to
// its max_retries edge when it has no timeout edge.
func (r *runner) next(n *Node, condition string) (string, bool) {
	to, ok := r.g.Next(n.ID, condition)
	if !ok && condition == OutcomeTimeout {
		to, ok = r.g.Next(n.ID, OutcomeMaxRetries)
	}
	return to, ok
}

func (r *runner) fail(ctx context.Context, n *Node, err error) error {
	if ctx.Err() != nil {
		r.res.End = EndCancelled
		return ctx.Err()
	}
	r.res.End = EndFailed
	return fmt.Errorf("ivr: node %q (%s): %w", n.ID, n.Type, err)
}

func (r *runner) exec(ctx context.Context, n *Node) (outcome, error) {
	switch n.Type {
	case NodeGreeting:
		key, err := r.play(ctx, n.Greeting.Prompt)
		return outcome{condition: OutcomeDefault, digit: keyString(key)}, err
	case NodeMenu:
		return r.menu(ctx, n.Menu)
	case NodeGather:
		return r.gather(ctx, n.Gather)
	case NodeHTTPCallback:
		return r.httpCallback(ctx, n.HTTP)
	case NodeTransfer:
		return r.transfer(ctx, n)
	case NodeGotoFlow:
		r.res.GotoFlowID = n.GotoFlow.FlowID
		return outcome{end: EndGotoFlow}, nil
	case NodeTiming:
		if InHours(n.Timing.Schedule, r.opts.Location, r.opts.Now()) {
			return outcome{condition: OutcomeInHours}, nil
		}
		return outcome{condition: OutcomeOutOfHours}, nil
	case NodeHangup:
		if _, err := r.play(ctx, n.Hangup.Goodbye); err != nil {
			return outcome{}, err
		}
		return outcome{end: EndHangup}, r.call.Hangup(ctx)
	}
	return outcome{}, fmt.Errorf("unknown node type %q", n.Type)
}

// menu plays the prompt and waits for one key, MaxRetries times at most.
// An invalid key plays the Invalid prompt; each try replays the prompt.
// It ends in timeout when the caller never pressed a key, else
// max_retries.
func (r *runner) menu(ctx context.Context, m *Menu) (outcome, error) {
	pressed := false
	for range m.MaxRetries {
		r.drain()
		key, err := r.play(ctx, m.Prompt)
		if err == nil && key == 0 {
			key, err = r.waitKey(ctx, m.Timeout)
		}
		if err != nil {
			return outcome{}, err
		}
		if key == 0 {
			continue
		}
		pressed = true
		if _, ok := m.Options[key]; ok {
			r.res.Variables["last_menu_digit"] = string(key)
			return outcome{condition: OutcomeDigitPrefix + string(key), digit: string(key)}, nil
		}
		if _, err := r.play(ctx, m.Invalid); err != nil {
			return outcome{}, err
		}
	}
	if !pressed {
		return outcome{condition: OutcomeTimeout}, nil
	}
	return outcome{condition: OutcomeMaxRetries}, nil
}

// gather collects keys until the terminator, MaxDigits keys or a pause of
// Timeout; a try that got no key replays the prompt.
func (r *runner) gather(ctx context.Context, g *Gather) (outcome, error) {
	for range g.MaxRetries {
		r.drain()
		first, err := r.play(ctx, g.Prompt)
		if err != nil {
			return outcome{}, err
		}
		got, err := r.collect(ctx, g, first)
		if err != nil {
			return outcome{}, err
		}
		if got != "" {
			if g.StoreAs != "" {
				r.res.Variables[g.StoreAs] = got
			}
			return outcome{condition: OutcomeDefault}, nil
		}
	}
	return outcome{condition: OutcomeMaxRetries}, nil
}

// collect reads keys after first (the key that interrupted the prompt,
// or 0).
func (r *runner) collect(ctx context.Context, g *Gather, first rune) (string, error) {
	var keys []rune
	key := first
	for {
		if key == 0 {
			var err error
			if key, err = r.waitKey(ctx, g.Timeout); err != nil {
				return "", err
			}
		}
		if key == 0 || key == g.Terminator {
			return string(keys), nil
		}
		keys = append(keys, key)
		if len(keys) >= g.MaxDigits {
			return string(keys), nil
		}
		key = 0
	}
}

func (r *runner) httpCallback(ctx context.Context, h *HTTPCallback) (outcome, error) {
	req, err := callbackRequest(h, r.res.Variables)
	if err != nil {
		// The variables cannot fill the request (a line break in a
		// header): it is not made, as a failed one.
		return outcome{condition: OutcomeHTTPNon2xx}, nil
	}
	status, body, err := r.call.HTTP(ctx, req)
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	if err != nil || status < 200 || status > 299 {
		// A failed request is the non2xx branch: the flow decides what
		// the caller hears.
		return outcome{condition: OutcomeHTTPNon2xx}, nil
	}
	if h.StoreAs != "" {
		r.res.Variables[h.StoreAs] = clip(string(body), MaxVariableBytes)
	}
	return outcome{condition: OutcomeHTTP2xx}, nil
}

func (r *runner) transfer(ctx context.Context, n *Node) (outcome, error) {
	agent := ""
	if n.Transfer.AgentID != uuid.Nil {
		agent = n.Transfer.AgentID.String()
	}
	result, err := r.call.Transfer(ctx, n.Transfer.TeamID.String(), agent)
	if err != nil {
		return outcome{}, err
	}
	switch result {
	case OutcomeCompleted, OutcomeNoAnswer, OutcomeAbandoned:
	default:
		return outcome{}, fmt.Errorf("transfer answered the unknown outcome %q", result)
	}
	if !r.g.HasEdgesFrom(n.ID) {
		return outcome{condition: result, end: EndTransfer}, nil
	}
	return outcome{condition: result}, nil
}

// play plays p with its texts' variables filled; an empty prompt plays
// nothing.
func (r *runner) play(ctx context.Context, p Prompt) (rune, error) {
	if p.Empty() {
		return 0, nil
	}
	p.Text = clip(expandText(p.Text, r.res.Variables), MaxTextLength*4)
	if utf8.RuneCountInString(p.Text) > MaxTextLength {
		p.Text = string([]rune(p.Text)[:MaxTextLength])
	}
	return r.call.Play(ctx, p)
}

// waitKey waits up to d (scaled) for a key; 0 when none came.
func (r *runner) waitKey(ctx context.Context, d time.Duration) (rune, error) {
	timer := time.NewTimer(time.Duration(float64(d) * r.opts.TimeScale))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-timer.C:
			return 0, nil
		case key, ok := <-r.digits:
			if !ok {
				r.digits = nil // no more keys: wait out the timer
				continue
			}
			return key, nil
		}
	}
}

// drain drops keys pressed before a prompt starts.
func (r *runner) drain() {
	for range 64 {
		select {
		case _, ok := <-r.digits:
			if !ok {
				r.digits = nil
				return
			}
		default:
			return
		}
	}
}

func keyString(k rune) string {
	if k == 0 {
		return ""
	}
	return string(k)
}

// clip cuts s to at most n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// errNothingToRun is Run's answer to a nil graph or call.
var errNothingToRun = errors.New("ivr: Run needs a graph and a call")
