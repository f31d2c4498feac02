package ivr_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/calling/ivr"
)

// fakeCall plays the caller: after the i-th prompt it presses after[i]
// (onto Digits), or it interrupts the i-th prompt with interrupt[i].
type fakeCall struct {
	mu        sync.Mutex
	digits    chan rune
	after     map[int]string
	interrupt map[int]rune
	playErr   error
	// onPlayed, when set, is told how many prompts have been played.
	onPlayed func(n int)

	played    []ivr.Prompt
	transfers []string // team/agent
	hangups   int
	requests  []ivr.HTTPRequest

	transferOutcome string
	httpStatus      int
	httpBody        string
	httpErr         error
}

func newFakeCall() *fakeCall {
	return &fakeCall{digits: make(chan rune, 64), after: map[int]string{}, interrupt: map[int]rune{}, transferOutcome: "completed", httpStatus: 200}
}

func (c *fakeCall) Play(_ context.Context, p ivr.Prompt) (rune, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := len(c.played)
	c.played = append(c.played, p)
	if c.onPlayed != nil {
		c.onPlayed(len(c.played))
	}
	if c.playErr != nil {
		return 0, c.playErr
	}
	if k, ok := c.interrupt[i]; ok && p.Interruptible {
		return k, nil
	}
	for _, k := range c.after[i] {
		c.digits <- k
	}
	return 0, nil
}

func (c *fakeCall) Digits() <-chan rune { return c.digits }

func (c *fakeCall) Transfer(_ context.Context, team, agent string) (string, error) {
	c.transfers = append(c.transfers, team+"/"+agent)
	return c.transferOutcome, nil
}

func (c *fakeCall) Hangup(context.Context) error {
	c.hangups++
	return nil
}

func (c *fakeCall) HTTP(_ context.Context, req ivr.HTTPRequest) (int, []byte, error) {
	c.requests = append(c.requests, req)
	return c.httpStatus, []byte(c.httpBody), c.httpErr
}

// texts are the texts of the prompts played, in order.
func (c *fakeCall) texts() []string {
	out := make([]string, len(c.played))
	for i, p := range c.played {
		out[i] = p.Text
	}
	return out
}

// path is the run's steps as node:outcome.
func path(res ivr.Result) string {
	s := make([]string, len(res.Steps))
	for i, st := range res.Steps {
		s[i] = st.NodeID + ":" + st.Outcome
	}
	return strings.Join(s, " ")
}

const (
	greetMenuTransfer = `{"version": 2, "entry_node": "g", "nodes": [
	  {"id": "g", "type": "greeting", "label": "Hello", "config": {"greeting_text": "Welcome {{caller_phone}}"}},
	  {"id": "m", "type": "menu", "label": "Main", "config": {"prompt_text": "Press 1 for sales", "options": {"1": {"label": "Sales"}, "2": {"label": "Support"}},
	    "timeout_seconds": 10, "max_retries": 2, "invalid_text": "Not an option"}},
	  {"id": "t", "type": "transfer", "label": "Sales", "config": {"team_id": "` + teamID + `"}},
	  {"id": "bye", "type": "hangup", "config": {"goodbye_text": "Goodbye"}}],
	  "edges": [{"from": "g", "to": "m"}, {"from": "m", "to": "t", "condition": "digit:1"}, {"from": "m", "to": "bye", "condition": "max_retries"}]}`

	gatherMenu = `{"nodes": [
	  {"id": "acct", "type": "gather", "config": {"prompt_text": "Account number then hash", "max_digits": 6, "timeout_seconds": 5, "max_retries": 2, "store_as": "account"}},
	  {"id": "say", "type": "greeting", "config": {"greeting_text": "You typed {{account}}"}}]}`

	httpMenu = `{"version": 2, "entry_node": "h", "nodes": [
	  {"id": "h", "type": "http_callback", "config": {"url": "https://crm.example.com/lookup?phone={{caller_phone}}", "method": "POST",
	    "headers": {"X-Call": "{{call_id}}"}, "body_template": "{\"phone\": \"{{caller_phone}}\"}", "response_store_as": "crm"}},
	  {"id": "ok", "type": "greeting", "config": {"greeting_text": "Hello {{crm}}"}},
	  {"id": "ko", "type": "hangup", "config": {"goodbye_text": "Sorry"}}],
	  "edges": [{"from": "h", "to": "ok", "condition": "http:2xx"}, {"from": "h", "to": "ko", "condition": "http:non2xx"}]}`

	timingMenu = `{"version": 2, "entry_node": "hours", "nodes": [
	  {"id": "hours", "type": "timing", "config": {"schedule": [{"day": "monday", "enabled": true, "open": "09:00", "close": "17:00"}]}},
	  {"id": "open", "type": "greeting", "config": {"greeting_text": "We are open"}},
	  {"id": "closed", "type": "hangup", "config": {"goodbye_text": "We are closed"}}],
	  "edges": [{"from": "hours", "to": "open", "condition": "in_hours"}, {"from": "hours", "to": "closed", "condition": "out_of_hours"}]}`
)

func TestRun(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	// Monday 2026-11-23 08:30 UTC is 09:30 in Paris (open), 08:30 in UTC (closed).
	monday := time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC)
	cases := []struct {
		name  string
		menu  string
		setup func(*fakeCall)
		opts  ivr.RunOptions
		check func(t *testing.T, c *fakeCall, res ivr.Result)
	}{
		{
			name:  "GreetingMenuDigitTransfer",
			menu:  greetMenuTransfer,
			setup: func(c *fakeCall) { c.after[1] = "1" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				want := []ivr.Step{
					{NodeID: "g", Type: "greeting", Label: "Hello", Outcome: "default"},
					{NodeID: "m", Type: "menu", Label: "Main", Outcome: "digit:1", Digit: "1"},
					{NodeID: "t", Type: "transfer", Label: "Sales", Outcome: "completed"},
				}
				if !reflect.DeepEqual(res.Steps, want) {
					t.Errorf("steps %+v", res.Steps)
				}
				if res.End != ivr.EndTransfer || !reflect.DeepEqual(c.transfers, []string{teamID + "/"}) {
					t.Errorf("end %q transfers %v", res.End, c.transfers)
				}
				if got := c.texts(); !reflect.DeepEqual(got, []string{"Welcome +4915112345", "Press 1 for sales"}) {
					t.Errorf("played %q", got)
				}
				if !c.played[1].Interruptible || c.played[0].Interruptible {
					t.Errorf("interruptible: greeting %v menu %v", c.played[0].Interruptible, c.played[1].Interruptible)
				}
				if res.Variables["last_menu_digit"] != "1" || res.Variables["caller_phone"] != "+4915112345" || res.Variables["call_id"] != "call-1" {
					t.Errorf("variables %v", res.Variables)
				}
			},
		},
		{
			name:  "InvalidDigitThenValid",
			menu:  greetMenuTransfer,
			setup: func(c *fakeCall) { c.after[1] = "7"; c.interrupt[3] = '1' },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if got := c.texts(); !reflect.DeepEqual(got, []string{"Welcome +4915112345", "Press 1 for sales", "Not an option", "Press 1 for sales"}) {
					t.Errorf("played %q", got)
				}
				if path(res) != "g:default m:digit:1 t:completed" {
					t.Errorf("path %s", path(res))
				}
			},
		},
		{
			name: "KeysBeforePromptAreDrained",
			menu: greetMenuTransfer,
			// 2 is pressed during the greeting (not interruptible): the
			// menu drops it and takes the 1 pressed after its prompt.
			setup: func(c *fakeCall) { c.after[0] = "2"; c.after[1] = "1" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "g:default m:digit:1 t:completed" {
					t.Errorf("path %s", path(res))
				}
			},
		},
		{
			name: "TimeoutsToMaxRetriesBranch",
			menu: greetMenuTransfer,
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				// No timeout edge: a caller who never pressed follows max_retries.
				if path(res) != "g:default m:timeout bye:" || res.End != ivr.EndHangup || c.hangups != 1 {
					t.Errorf("path %s end %q hangups %d", path(res), res.End, c.hangups)
				}
				if got := c.texts(); !reflect.DeepEqual(got, []string{"Welcome +4915112345", "Press 1 for sales", "Press 1 for sales", "Goodbye"}) {
					t.Errorf("played %q", got)
				}
			},
		},
		{
			name:  "InvalidDigitsToMaxRetries",
			menu:  greetMenuTransfer,
			setup: func(c *fakeCall) { c.after[1] = "9"; c.after[3] = "8" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "g:default m:max_retries bye:" {
					t.Errorf("path %s", path(res))
				}
			},
		},
		{
			name: "TimeoutEdge",
			menu: strings.Replace(greetMenuTransfer, `"edges": [`, `"edges": [{"from": "m", "to": "t", "condition": "timeout"}, `, 1),
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "g:default m:timeout t:completed" {
					t.Errorf("path %s", path(res))
				}
			},
		},
		{
			name:  "GatherWithTerminator",
			menu:  gatherMenu,
			setup: func(c *fakeCall) { c.after[0] = "1234#9" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if res.Variables["account"] != "1234" || path(res) != "acct:default say:default" || res.End != ivr.EndOfGraph {
					t.Errorf("variables %v path %s end %q", res.Variables, path(res), res.End)
				}
				if got := c.played[1].Text; got != "You typed 1234" {
					t.Errorf("played %q", got)
				}
				if res.Steps[0].Digit != "" {
					t.Errorf("gathered digits in the path: %q", res.Steps[0].Digit)
				}
			},
		},
		{
			name:  "GatherMaxDigitsAndInterrupt",
			menu:  gatherMenu,
			setup: func(c *fakeCall) { c.interrupt[0] = '9'; c.digits <- '0'; c.after[0] = "unused" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				// The key pressed before the prompt (0) is drained; the
				// prompt is interrupted by 9.
				if res.Variables["account"] != "9" {
					t.Errorf("account %q", res.Variables["account"])
				}
			},
		},
		{
			name:  "GatherStopsAtMaxDigits",
			menu:  gatherMenu,
			setup: func(c *fakeCall) { c.after[0] = "12345678" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if res.Variables["account"] != "123456" {
					t.Errorf("account %q", res.Variables["account"])
				}
			},
		},
		{
			name:  "GatherRetryThenMaxRetries",
			menu:  gatherMenu,
			setup: func(c *fakeCall) { c.after[0] = "#" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "acct:max_retries say:default" || len(c.played) != 3 {
					t.Errorf("path %s, %d prompts", path(res), len(c.played))
				}
				if _, ok := res.Variables["account"]; ok {
					t.Error("account stored without digits")
				}
			},
		},
		{
			name:  "HTTP2xxCapturesBody",
			menu:  httpMenu,
			setup: func(c *fakeCall) { c.httpBody = "Alice" },
			opts:  ivr.RunOptions{CallerPhone: `+49 1"5&x=1`, CallID: "c-1"},
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "h:http:2xx ok:default" || res.Variables["crm"] != "Alice" || c.played[0].Text != "Hello Alice" {
					t.Errorf("path %s variables %v played %q", path(res), res.Variables, c.texts())
				}
				req := c.requests[0]
				want := ivr.HTTPRequest{
					Method:  "POST",
					URL:     "https://crm.example.com/lookup?phone=%2B49%201%225%26x%3D1",
					Headers: map[string]string{"X-Call": "c-1"},
					Body:    `{"phone": "+49 1\"5&x=1"}`,
					Timeout: 10 * time.Second,
				}
				if !reflect.DeepEqual(req, want) {
					t.Errorf("request %+v\nwant    %+v", req, want)
				}
			},
		},
		{
			// A value that would add a header is refused: the request is
			// not made and the flow takes http:non2xx.
			name: "HTTPHeaderLineBreakRefused",
			menu: httpMenu,
			opts: ivr.RunOptions{CallerPhone: "+4915112345", CallID: "c\r\nX-Admin: 1"},
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "h:http:non2xx ko:" || len(c.requests) != 0 {
					t.Errorf("path %s, requests %+v", path(res), c.requests)
				}
			},
		},
		{
			name:  "HTTPNon2xx",
			menu:  httpMenu,
			setup: func(c *fakeCall) { c.httpStatus = 503; c.httpBody = "down" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "h:http:non2xx ko:" || res.End != ivr.EndHangup {
					t.Errorf("path %s end %q", path(res), res.End)
				}
				if _, ok := res.Variables["crm"]; ok {
					t.Error("a failed response was stored")
				}
			},
		},
		{
			name:  "HTTPErrorIsNon2xx",
			menu:  httpMenu,
			setup: func(c *fakeCall) { c.httpErr = errors.New("destination not allowed") },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "h:http:non2xx ko:" {
					t.Errorf("path %s", path(res))
				}
			},
		},
		{
			name: "TimingInHours",
			menu: timingMenu,
			opts: ivr.RunOptions{Location: paris, Now: func() time.Time { return monday }},
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "hours:in_hours open:default" {
					t.Errorf("path %s", path(res))
				}
			},
		},
		{
			name: "TimingOutOfHours",
			menu: timingMenu,
			opts: ivr.RunOptions{Now: func() time.Time { return monday }},
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "hours:out_of_hours closed:" || c.played[0].Text != "We are closed" {
					t.Errorf("path %s played %q", path(res), c.texts())
				}
			},
		},
		{
			name: "GotoFlow",
			menu: `{"nodes": [{"id": "g", "type": "greeting", "config": {"greeting_text": "One moment"}},
			  {"id": "f", "type": "goto_flow", "config": {"flow_id": "` + flowID + `"}}]}`,
			opts: ivr.RunOptions{Variables: map[string]string{"account": "42"}},
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if res.End != ivr.EndGotoFlow || res.GotoFlowID.String() != flowID || path(res) != "g:default f:" {
					t.Errorf("end %q flow %s path %s", res.End, res.GotoFlowID, path(res))
				}
				if res.Variables["account"] != "42" {
					t.Errorf("carried variables lost: %v", res.Variables)
				}
			},
		},
		{
			name: "TransferWithEdges",
			menu: `{"version": 2, "entry_node": "t", "nodes": [
			  {"id": "t", "type": "transfer", "config": {"team_id": "` + teamID + `", "agent_id": "` + agentID + `"}},
			  {"id": "bye", "type": "hangup", "config": {"goodbye_text": "Nobody answered"}}],
			  "edges": [{"from": "t", "to": "bye", "condition": "no_answer"}]}`,
			setup: func(c *fakeCall) { c.transferOutcome = "no_answer" },
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if path(res) != "t:no_answer bye:" || c.transfers[0] != teamID+"/"+agentID || res.End != ivr.EndHangup {
					t.Errorf("path %s transfers %v end %q", path(res), c.transfers, res.End)
				}
			},
		},
		{
			name: "InterruptedGreetingRecordsKey",
			menu: `{"nodes": [{"id": "g", "type": "greeting", "config": {"greeting_text": "Long text", "interruptible": true}}]}`,
			setup: func(c *fakeCall) {
				c.interrupt[0] = '5'
			},
			check: func(t *testing.T, c *fakeCall, res ivr.Result) {
				if res.Steps[0].Digit != "5" || res.End != ivr.EndOfGraph {
					t.Errorf("steps %+v end %q", res.Steps, res.End)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeCall()
			if tc.setup != nil {
				tc.setup(c)
			}
			opts := tc.opts
			if opts.CallerPhone == "" {
				opts.CallerPhone = "+4915112345"
			}
			if opts.CallID == "" {
				opts.CallID = "call-1"
			}
			opts.TimeScale = 0.001 // 10 s waits take 10 ms
			res, err := ivr.Run(context.Background(), MustParse(t, tc.menu), c, opts)
			if err != nil {
				t.Fatalf("Run: %v (path %s)", err, path(res))
			}
			tc.check(t, c, res)
		})
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := newFakeCall()
	// Cancelled while the menu waits for a digit (its prompt is the
	// second played).
	c.onPlayed = func(n int) {
		if n == 2 {
			cancel()
		}
	}
	start := time.Now()
	// A 10 s menu timeout at full scale: only the cancellation ends it.
	res, err := ivr.Run(ctx, MustParse(t, greetMenuTransfer), c, ivr.RunOptions{})
	if !errors.Is(err, context.Canceled) || res.End != ivr.EndCancelled {
		t.Fatalf("Run = %v, end %q; want cancelled", err, res.End)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled run took %s", d)
	}
	if path(res) != "g:default m:" || len(c.transfers) != 0 || c.hangups != 0 {
		t.Errorf("path %s transfers %v hangups %d", path(res), c.transfers, c.hangups)
	}
}

func TestRunFailures(t *testing.T) {
	loop := `{"version": 2, "entry_node": "a", "nodes": [
	  {"id": "a", "type": "greeting", "config": {"greeting_text": "A"}},
	  {"id": "b", "type": "greeting", "config": {"greeting_text": "B"}}],
	  "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]}`
	t.Run("MaxSteps", func(t *testing.T) {
		res, err := ivr.Run(context.Background(), MustParse(t, loop), newFakeCall(), ivr.RunOptions{MaxSteps: 7})
		if err == nil || res.End != ivr.EndFailed || len(res.Steps) != 7 {
			t.Fatalf("Run = %v, end %q, %d steps", err, res.End, len(res.Steps))
		}
	})
	t.Run("PlayError", func(t *testing.T) {
		c := newFakeCall()
		boom := errors.New("audio file missing")
		c.playErr = boom
		res, err := ivr.Run(context.Background(), MustParse(t, loop), c, ivr.RunOptions{})
		if !errors.Is(err, boom) || res.End != ivr.EndFailed || !strings.Contains(err.Error(), `node "a"`) {
			t.Fatalf("Run = %v, end %q", err, res.End)
		}
	})
	t.Run("NoCall", func(t *testing.T) {
		if _, err := ivr.Run(context.Background(), MustParse(t, loop), nil, ivr.RunOptions{}); err == nil {
			t.Fatal("Run without a call succeeded")
		}
	})
}

func TestInHours(t *testing.T) {
	sched := []ivr.Day{{Weekday: time.Monday, Enabled: true, Open: 9 * 60, Close: 17 * 60}, {Weekday: time.Tuesday, Open: 0, Close: 24 * 60}}
	cases := []struct {
		name string
		at   time.Time
		want bool
	}{
		{"Opening", time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC), true},
		{"BeforeOpening", time.Date(2026, 11, 23, 8, 59, 0, 0, time.UTC), false},
		{"Closing", time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC), false},
		{"DisabledDay", time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), false},
		{"UnlistedDay", time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ivr.InHours(sched, nil, c.at); got != c.want {
				t.Errorf("InHours(%s) = %v", c.at, got)
			}
		})
	}
}
