package chatbot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"switchboard/chatbot/condition"
)

// This file is the flow engine: it moves a session through a flow's graph
// one contact message at a time. It is pure: what a step does to the
// world (sending, HTTP calls, transfers, loading another flow) goes
// through a FlowEnv, so a step can be run and measured in-process.

// MaxStepsPerMessage bounds the nodes one message may run through (a
// graph of message and condition nodes may loop).
const MaxStepsPerMessage = 100

// maxFlowJumps bounds goto_flow jumps per message.
const maxFlowJumps = 10

// retriesVar is the session variable counting a prompt's failed answers.
const retriesVar = "_retries"

// Session statuses.
const (
	SessionActive    = "active"
	SessionCompleted = "completed"
	SessionCancelled = "cancelled"
	SessionTimeout   = "timeout"
)

// Reply is one message the bot sends: a text, with reply buttons when
// Buttons is not empty.
type Reply struct {
	Text    string
	Buttons []Button
}

// Input is the contact's message a waiting step reads: its text, and the
// id of the reply button they pressed ("" for typed text).
type Input struct {
	Text     string
	ButtonID string
}

// HTTPRequest is an api_call's or webhook's request, its texts already
// substituted.
type HTTPRequest struct {
	Method  string
	URL     string
	Headers map[string]string
	Body    []byte
}

// HTTPResult is an api_call's answer.
type HTTPResult struct {
	Status int
	Body   []byte
}

// FlowEnv is what a flow step does to the world.
type FlowEnv interface {
	// Send sends a reply to the contact.
	Send(ctx context.Context, r Reply) error
	// Call makes an api_call's request and returns its answer; an error
	// (refused address, timeout) reads as a non-2xx outcome.
	Call(ctx context.Context, req HTTPRequest) (HTTPResult, error)
	// Fire makes a webhook node's request once the step has committed,
	// ignoring its result.
	Fire(ctx context.Context, req HTTPRequest)
	// Transfer hands the contact to a team (nil: the general queue).
	Transfer(ctx context.Context, teamID *uuid.UUID, notes string) error
	// SendForm sends a chat_flow node's platform form flow.
	SendForm(ctx context.Context, c NodeConfig, vars map[string]any) error
	// InHours reports whether now falls within a timing node's schedule.
	InHours(schedule []ScheduleDay) bool
	// Flow loads another flow of the organization (goto_flow).
	Flow(ctx context.Context, id uuid.UUID) (*Graph, error)
	// Warn reports what a step refused to do (a condition over its
	// budget); the flow goes on.
	Warn(msg string, args ...any)
}

// FlowState is a session's place in a flow.
type FlowState struct {
	FlowID uuid.UUID
	Graph  *Graph
	// Step is the node waiting for the contact's answer ("" before the
	// flow starts).
	Step   string
	Vars   map[string]any
	Status string
}

// Start runs a flow from its entry node until it waits for an answer or
// ends.
func Start(ctx context.Context, env FlowEnv, st *FlowState) error {
	st.Step = ""
	st.Status = SessionActive
	if st.Vars == nil {
		st.Vars = map[string]any{}
	}
	return run(ctx, env, st, st.Graph.EntryNode, nil)
}

// Continue gives the contact's message to the step the session waits at,
// then runs on until the flow waits again or ends.
func Continue(ctx context.Context, env FlowEnv, st *FlowState, in Input) error {
	if st.Vars == nil {
		st.Vars = map[string]any{}
	}
	if st.Step == "" {
		return Start(ctx, env, st)
	}
	return run(ctx, env, st, st.Step, &in)
}

// run executes nodes from cur. in is the answer for the node cur, when
// the session was waiting there.
func run(ctx context.Context, env FlowEnv, st *FlowState, cur string, in *Input) error {
	jumps := 0
	for steps := 0; ; steps++ {
		if cur == "" {
			return finish(st, SessionCompleted)
		}
		if steps >= MaxStepsPerMessage {
			return flowErrf("the flow ran %d steps without waiting for the contact (a loop?)", steps)
		}
		n := st.Graph.Node(cur)
		if n == nil {
			return flowErrf("the flow has no node %q", cur)
		}
		c := &n.Conf
		var next string
		var err error
		switch n.Type {
		case NodeMessage:
			err = sendText(ctx, env, c.Message, st.Vars)
			next = st.Graph.Next(n.ID, CondDefault)
		case NodePrompt:
			var wait bool
			next, wait, err = prompt(ctx, env, st, n, in)
			in = nil
			if wait {
				st.Step = n.ID
				return err
			}
		case NodeButtons:
			var wait bool
			next, wait, err = buttons(ctx, env, st, n, in)
			in = nil
			if wait {
				st.Step = n.ID
				return err
			}
		case NodeAPICall:
			next, err = apiCall(ctx, env, st, n)
		case NodeCondition:
			// An expression that fails on the session's values (a
			// comparison of text with a number) reads as false; one
			// over its budget too, and is reported.
			ok, cerr := evalCondition(c.Expression, st.Vars)
			if errors.Is(cerr, condition.ErrBudget) {
				env.Warn("chatbot condition refused: over its evaluation budget", "node", n.ID, "err", cerr)
			}
			next = st.Graph.Next(n.ID, map[bool]string{true: CondTrue, false: CondFalse}[ok])
		case NodeTiming:
			next = st.Graph.Next(n.ID, map[bool]string{true: CondInHours, false: CondOutOfHours}[env.InHours(c.Schedule)])
		case NodeChatFlow:
			err = env.SendForm(ctx, *c, st.Vars)
			next = st.Graph.Next(n.ID, CondDefault)
		case NodeWebhook:
			// A request the variables cannot fill (a line break in a
			// header) is not made; the flow goes on.
			if req, rerr := request(c, st.Vars); rerr == nil {
				env.Fire(ctx, req)
			}
			next = st.Graph.Next(n.ID, CondDefault)
		case NodeTransfer:
			if err = sendText(ctx, env, c.Body, st.Vars); err != nil {
				return err
			}
			var team *uuid.UUID
			if id, perr := uuid.Parse(c.TeamID); perr == nil {
				team = &id
			}
			if err = env.Transfer(ctx, team, Substitute(c.Notes, st.Vars)); err != nil {
				return err
			}
			return finish(st, SessionCompleted)
		case NodeGotoFlow:
			if jumps++; jumps > maxFlowJumps {
				return flowErrf("more than %d goto_flow jumps for one message", maxFlowJumps)
			}
			id, perr := uuid.Parse(c.FlowID)
			if perr != nil {
				return flowErrf("goto_flow node %q names no flow", n.ID)
			}
			g, gerr := env.Flow(ctx, id)
			if gerr != nil {
				return gerr
			}
			st.FlowID, st.Graph = id, g
			next = g.EntryNode
		case NodeEnd:
			if err = sendText(ctx, env, c.Message, st.Vars); err != nil {
				return err
			}
			return finish(st, SessionCompleted)
		default:
			return flowErrf("node %q has an unknown type %q", n.ID, n.Type)
		}
		if err != nil {
			return err
		}
		cur = next
	}
}

func finish(st *FlowState, status string) error {
	st.Status, st.Step = status, ""
	delete(st.Vars, retriesVar)
	return nil
}

// sendText sends text with the session's variables, when there is any.
func sendText(ctx context.Context, env FlowEnv, text string, vars map[string]any) error {
	t := strings.TrimSpace(Substitute(text, vars))
	if t == "" {
		return nil
	}
	return env.Send(ctx, Reply{Text: t})
}

// prompt asks (in == nil) or reads the answer: a valid one is stored and
// leads on by default; an invalid one is asked again with the validation
// error until max_retries answers failed, which leads on by max_retries
// (or ends the flow when no edge handles it).
func prompt(ctx context.Context, env FlowEnv, st *FlowState, n *Node, in *Input) (next string, wait bool, err error) {
	c := &n.Conf
	if in == nil {
		st.Vars[retriesVar] = 0
		return "", true, sendText(ctx, env, c.Body, st.Vars)
	}
	answer := strings.TrimSpace(in.Text)
	if answerPasses(c.ValidationRegex, answer) {
		if c.StoreAs != "" {
			st.Vars[c.StoreAs] = answer
		}
		delete(st.Vars, retriesVar)
		return st.Graph.Next(n.ID, CondDefault), false, nil
	}
	tries := intVar(st.Vars[retriesVar]) + 1
	st.Vars[retriesVar] = tries
	if c.MaxRetries > 0 && tries >= c.MaxRetries {
		delete(st.Vars, retriesVar)
		return st.Graph.Next(n.ID, CondMaxRetries), false, nil
	}
	msg := c.ValidationError
	if strings.TrimSpace(msg) == "" {
		msg = c.Body
	}
	return "", true, sendText(ctx, env, msg, st.Vars)
}

// buttons sends the node's buttons (in == nil) or follows the one pressed
// (by id, or a typed title); anything else sends them again.
func buttons(ctx context.Context, env FlowEnv, st *FlowState, n *Node, in *Input) (next string, wait bool, err error) {
	c := &n.Conf
	if in != nil {
		for _, b := range c.Buttons {
			if (in.ButtonID != "" && in.ButtonID == b.ID) || strings.EqualFold(strings.TrimSpace(in.Text), b.Title) {
				return st.Graph.Next(n.ID, CondButtonPrefix+b.ID), false, nil
			}
		}
	}
	return "", true, env.Send(ctx, Reply{Text: Substitute(c.Body, st.Vars), Buttons: c.Buttons})
}

// apiCall makes the node's request; on 2xx it stores the mapped values of
// the JSON answer and sends the message template.
func apiCall(ctx context.Context, env FlowEnv, st *FlowState, n *Node) (string, error) {
	c := &n.Conf
	req, err := request(c, st.Vars)
	if err != nil {
		// The variables cannot fill the request: it is not made.
		return st.Graph.Next(n.ID, CondHTTPNon2xx), nil
	}
	res, err := env.Call(ctx, req)
	if err != nil || res.Status < 200 || res.Status > 299 {
		return st.Graph.Next(n.ID, CondHTTPNon2xx), nil
	}
	if len(c.ResponseMapping) > 0 {
		doc := decodeJSON(res.Body)
		for name, path := range c.ResponseMapping {
			st.Vars[name] = lookup(doc, path)
		}
	}
	if err := sendText(ctx, env, c.MessageTemplate, st.Vars); err != nil {
		return "", err
	}
	return st.Graph.Next(n.ID, CondHTTP2xx), nil
}

// request is an api_call's or webhook's request with the session's
// variables (requestTemplate.fill).
func request(c *NodeConfig, vars map[string]any) (HTTPRequest, error) {
	rt := requestTemplate{Method: c.Method, URL: c.URL, Headers: c.Headers, Body: c.Body, BodyJSON: c.BodyRaw}
	return rt.fill(vars)
}

// answerPasses reports whether answer passes a prompt's validation (an
// empty pattern accepts any non-empty answer).
func answerPasses(pattern, answer string) bool {
	if pattern == "" {
		return answer != ""
	}
	re, err := cachedRegex(pattern)
	return err == nil && re.MatchString(answer)
}

// conditionCache keeps compiled condition programs by expression text,
// emptied when it reaches maxCachedRegexes entries.
var conditionCache = struct {
	sync.Mutex
	m map[string]*condition.Program
}{m: map[string]*condition.Program{}}

// evalCondition evaluates an expression over the variables; a program is
// compiled once per expression text.
func evalCondition(expression string, vars map[string]any) (bool, error) {
	conditionCache.Lock()
	p := conditionCache.m[expression]
	conditionCache.Unlock()
	if p == nil {
		var err error
		if p, err = CompileCondition(expression); err != nil {
			return false, flowErrf("condition %q: %v", expression, err)
		}
		conditionCache.Lock()
		if len(conditionCache.m) >= maxCachedRegexes {
			conditionCache.m = map[string]*condition.Program{}
		}
		conditionCache.m[expression] = p
		conditionCache.Unlock()
	}
	ok, err := EvalCondition(p, vars)
	if err != nil {
		return false, fmt.Errorf("condition %q failed: %w", expression, err)
	}
	return ok, nil
}

func intVar(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	case int64:
		return int(n)
	}
	return 0
}

func flowErrf(format string, args ...any) error { return &flowError{fmt.Sprintf(format, args...)} }
