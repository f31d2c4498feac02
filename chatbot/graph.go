package chatbot

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"switchboard/apperr"
	"switchboard/chatbot/condition"
	"switchboard/internal/placeholder"
	"switchboard/internal/valid"
	"switchboard/netguard"
)

// GraphVersion is the version of the flow graph format (the spec's value).
const GraphVersion = 2

// Bounds of a flow graph.
const (
	MaxNodes           = 200
	MaxEdges           = 1000
	MaxNodeIDLength    = 64
	MaxLabelLength     = 200
	MaxTextLength      = 4096 // the platform's text body limit
	MaxShortText       = 60   // header and call-to-action texts
	MaxRegexLength     = 500
	MaxExpression      = 1000
	MaxRetries         = 10
	MaxHeaders         = 20
	MaxHeaderLength    = 4096
	MaxResponseMapping = 50
	MaxPathLength      = 256
	MaxGraphBytes      = 1 << 20
)

// Node types of a flow graph (the spec's node-type table).
const (
	NodeMessage   = "message"
	NodePrompt    = "prompt"
	NodeButtons   = "buttons"
	NodeAPICall   = "api_call"
	NodeCondition = "condition"
	NodeTiming    = "timing"
	NodeChatFlow  = "chat_flow"
	NodeTransfer  = "transfer"
	NodeGotoFlow  = "goto_flow"
	NodeWebhook   = "webhook"
	NodeEnd       = "end"
)

// Edge conditions: the outcome of a node an edge handles.
const (
	CondDefault      = "default"
	CondMaxRetries   = "max_retries"
	CondButtonPrefix = "button:"
	CondHTTP2xx      = "http:2xx"
	CondHTTPNon2xx   = "http:non2xx"
	CondTrue         = "true"
	CondFalse        = "false"
	CondInHours      = "in_hours"
	CondOutOfHours   = "out_of_hours"
)

// NodeTypes lists every node type.
var NodeTypes = []string{NodeMessage, NodePrompt, NodeButtons, NodeAPICall, NodeCondition, NodeTiming,
	NodeChatFlow, NodeTransfer, NodeGotoFlow, NodeWebhook, NodeEnd}

// Terminal reports whether a node of type t ends the flow (or leaves it):
// it has no outgoing edges.
func Terminal(t string) bool { return t == NodeTransfer || t == NodeEnd || t == NodeGotoFlow }

// Graph is a chatbot flow's conversation graph.
type Graph struct {
	Version   int    `json:"version"`
	EntryNode string `json:"entry_node"`
	Nodes     []Node `json:"nodes"`
	Edges     []Edge `json:"edges"`
}

// Position is where the builder draws a node.
type Position struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Node is one step of a flow. Config is stored as sent; Conf is its typed
// reading, filled by ParseGraph.
type Node struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Label    string         `json:"label"`
	Position Position       `json:"position"`
	Config   map[string]any `json:"config"`
	Conf     NodeConfig     `json:"-"`
}

// Edge leads from a node to the next one for one outcome (Condition).
type Edge struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Condition string `json:"condition"`
}

// Button is a reply button {id, title}.
type Button struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ScheduleDay is one day of a weekly schedule (day 0 is Sunday), times
// HH:MM in the organization's time zone.
type ScheduleDay struct {
	Day       int    `json:"day"`
	Enabled   bool   `json:"enabled"`
	StartTime string `json:"start_time"`
	EndTime   string `json:"end_time"`
}

// NodeConfig is the typed config of a node: the union of the fields of
// every node type (each type reads its own).
type NodeConfig struct {
	Message         string            `json:"message"`
	Body            string            `json:"body"`
	StoreAs         string            `json:"store_as"`
	ValidationRegex string            `json:"validation_regex"`
	ValidationError string            `json:"validation_error"`
	MaxRetries      int               `json:"max_retries"`
	Buttons         []Button          `json:"buttons"`
	URL             string            `json:"url"`
	Method          string            `json:"method"`
	Headers         map[string]string `json:"headers"`
	ResponseMapping map[string]string `json:"response_mapping"`
	MessageTemplate string            `json:"message_template"`
	Expression      string            `json:"expression"`
	Schedule        []ScheduleDay     `json:"schedule"`
	FlowID          string            `json:"flow_id"`
	Header          string            `json:"header"`
	CTA             string            `json:"cta"`
	TeamID          string            `json:"team_id"`
	Notes           string            `json:"notes"`
	// BodyRaw is api_call's and webhook's request body: a string, or
	// any JSON value sent as JSON.
	BodyRaw json.RawMessage `json:"-"`
}

// Node returns the node with id, or nil.
func (g *Graph) Node(id string) *Node {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i]
		}
	}
	return nil
}

// Next returns the node an edge from "from" with condition leads to ("" when
// none does).
func (g *Graph) Next(from, condition string) string {
	for _, e := range g.Edges {
		if e.From == from && e.Condition == condition {
			return e.To
		}
	}
	return ""
}

// Map renders the graph as the JSON object stored in the flow.
func (g *Graph) Map() map[string]any {
	b, _ := json.Marshal(g)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// GraphError is a graph that failed validation; Node names the offending
// node when there is one.
type GraphError struct {
	Node    string
	Message string
}

func (e *GraphError) Error() string {
	if e.Node != "" {
		return fmt.Sprintf("graph: node %q: %s", e.Node, e.Message)
	}
	return "graph: " + e.Message
}

func graphErr(node, format string, args ...any) error {
	return apperr.Invalidf("%s", (&GraphError{Node: node, Message: fmt.Sprintf(format, args...)}).Error())
}

// Reference is a flow another flow's node points at, for the caller to
// check against the database.
type Reference struct {
	Node   string
	Type   string // goto_flow or chat_flow
	FlowID string
}

// DecodeGraph reads a graph from its JSON form and validates it (as
// ParseGraph). Errors: invalid, naming the node at fault.
func DecodeGraph(data []byte) (*Graph, error) {
	if len(data) > MaxGraphBytes {
		return nil, graphErr("", "the graph is larger than %d bytes", MaxGraphBytes)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, graphErr("", "the graph must be a JSON object")
	}
	return ParseGraph(raw)
}

// ParseGraph validates a stored or submitted graph and returns its typed
// form: version, entry node, unique node ids, known node types with valid
// configs (buttons, regexes, expressions, URLs, schedules, bounded texts),
// edges between existing nodes whose conditions the source node's type
// produces (one edge per outcome), terminal nodes without outgoing edges,
// and every node reachable from the entry. References to other flows are
// checked by the caller (References). Errors: invalid, naming the node.
func ParseGraph(raw map[string]any) (*Graph, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, graphErr("", "the graph cannot be encoded")
	}
	if len(b) > MaxGraphBytes {
		return nil, graphErr("", "the graph is larger than %d bytes", MaxGraphBytes)
	}
	var shape struct {
		Version   *int              `json:"version"`
		EntryNode string            `json:"entry_node"`
		Nodes     []json.RawMessage `json:"nodes"`
		Edges     []json.RawMessage `json:"edges"`
	}
	if err := json.Unmarshal(b, &shape); err != nil {
		return nil, graphErr("", "version must be an integer, entry_node a string, nodes and edges arrays")
	}
	g := &Graph{Version: GraphVersion, EntryNode: shape.EntryNode}
	if shape.Version != nil && *shape.Version != GraphVersion {
		return nil, graphErr("", "version must be %d", GraphVersion)
	}
	if len(shape.Nodes) == 0 {
		return nil, graphErr("", "the graph needs at least one node")
	}
	if len(shape.Nodes) > MaxNodes {
		return nil, graphErr("", "a graph has at most %d nodes", MaxNodes)
	}
	if len(shape.Edges) > MaxEdges {
		return nil, graphErr("", "a graph has at most %d edges", MaxEdges)
	}
	seen := map[string]bool{}
	for i, rn := range shape.Nodes {
		n, err := decodeNode(i, rn)
		if err != nil {
			return nil, err
		}
		if seen[n.ID] {
			return nil, graphErr(n.ID, "the node id is used twice")
		}
		seen[n.ID] = true
		g.Nodes = append(g.Nodes, n)
	}
	if g.EntryNode == "" {
		return nil, graphErr("", "entry_node is required")
	}
	if !seen[g.EntryNode] {
		return nil, graphErr(g.EntryNode, "the entry node does not exist")
	}
	outs := map[string]map[string]bool{}
	for i, re := range shape.Edges {
		var e Edge
		if err := json.Unmarshal(re, &e); err != nil {
			return nil, graphErr("", "edge %d: from, to and condition must be strings", i)
		}
		from := g.Node(e.From)
		if from == nil {
			return nil, graphErr(e.From, "edge %d starts at a node that does not exist", i)
		}
		if g.Node(e.To) == nil {
			return nil, graphErr(e.To, "edge %d from %q leads to a node that does not exist", i, e.From)
		}
		if e.Condition == "" {
			e.Condition = CondDefault
		}
		if err := checkCondition(from, e.Condition); err != nil {
			return nil, err
		}
		if outs[e.From] == nil {
			outs[e.From] = map[string]bool{}
		}
		if outs[e.From][e.Condition] {
			return nil, graphErr(e.From, "two edges handle the outcome %q", e.Condition)
		}
		outs[e.From][e.Condition] = true
		g.Edges = append(g.Edges, e)
	}
	if err := checkReachable(g); err != nil {
		return nil, err
	}
	return g, nil
}

// References returns the flows the graph's goto_flow and chat_flow nodes
// name.
func (g *Graph) References() []Reference {
	var out []Reference
	for _, n := range g.Nodes {
		if n.Type == NodeGotoFlow || n.Type == NodeChatFlow {
			out = append(out, Reference{Node: n.ID, Type: n.Type, FlowID: n.Conf.FlowID})
		}
	}
	return out
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

func decodeNode(i int, rn json.RawMessage) (Node, error) {
	var n Node
	if err := json.Unmarshal(rn, &n); err != nil {
		return n, graphErr("", "node %d: id, type and label must be strings, position {x, y} numbers, config an object", i)
	}
	switch {
	case strings.TrimSpace(n.ID) == "":
		return n, graphErr("", "node %d has no id", i)
	case len(n.ID) > MaxNodeIDLength:
		return n, graphErr("", "node %d: an id has at most %d bytes", i, MaxNodeIDLength)
	case !utf8.ValidString(n.ID) || strings.ContainsAny(n.ID, "\x00"):
		return n, graphErr("", "node %d: the id must be valid text", i)
	case utf8.RuneCountInString(n.Label) > MaxLabelLength:
		return n, graphErr(n.ID, "the label has at most %d characters", MaxLabelLength)
	case !slices.Contains(NodeTypes, n.Type):
		return n, graphErr(n.ID, "unknown node type %q (one of %s)", n.Type, strings.Join(NodeTypes, ", "))
	}
	if n.Config == nil {
		n.Config = map[string]any{}
	}
	cb, _ := json.Marshal(n.Config)
	var conf struct {
		NodeConfig
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(cb, &conf); err != nil {
		return n, graphErr(n.ID, "config: %s", jsonFieldError(err))
	}
	n.Conf = conf.NodeConfig
	if len(conf.Body) > 0 && string(conf.Body) != "null" {
		var s string
		if err := json.Unmarshal(conf.Body, &s); err == nil {
			n.Conf.Body = s
		} else if n.Type == NodeAPICall || n.Type == NodeWebhook {
			n.Conf.BodyRaw = conf.Body
		} else {
			return n, graphErr(n.ID, "config.body must be a string")
		}
	}
	return n, checkConfig(&n)
}

func jsonFieldError(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asTypeError(err, &te); ok && te.Field != "" {
		return fmt.Sprintf("%s must be %s", te.Field, te.Type.String())
	}
	return "a field has the wrong type"
}

func asTypeError(err error, dst **json.UnmarshalTypeError) bool {
	te, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*dst = te
	}
	return ok
}

// text checks a node's text setting: present when required, at most max
// characters, valid UTF-8 without NUL characters (valid's words, in the
// node's GraphError).
func text(node, name, s string, max int, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return graphErr(node, "config.%s is required", name)
	case utf8.RuneCountInString(s) > max:
		return graphErr(node, "config.%s has at most %d characters", name, max)
	}
	if err := valid.NoNUL("config."+name, s); err != nil {
		return graphErr(node, "%s", err.(*apperr.Error).Message)
	}
	return nil
}

func checkConfig(n *Node) error {
	c := &n.Conf
	switch n.Type {
	case NodeMessage:
		return text(n.ID, "message", c.Message, MaxTextLength, true)
	case NodeEnd:
		return text(n.ID, "message", c.Message, MaxTextLength, false)
	case NodePrompt:
		if err := text(n.ID, "body", c.Body, MaxTextLength, true); err != nil {
			return err
		}
		if c.StoreAs != "" && !identRe.MatchString(c.StoreAs) {
			return graphErr(n.ID, "config.store_as must be a variable name (letters, digits, _; at most 64)")
		}
		if c.ValidationRegex != "" {
			if _, err := CompileRegex(c.ValidationRegex); err != nil {
				return graphErr(n.ID, "config.validation_regex: %s", err.Error())
			}
		}
		if err := text(n.ID, "validation_error", c.ValidationError, MaxTextLength, false); err != nil {
			return err
		}
		if c.MaxRetries < 0 || c.MaxRetries > MaxRetries {
			return graphErr(n.ID, "config.max_retries must be from 0 to %d", MaxRetries)
		}
	case NodeButtons:
		if err := text(n.ID, "body", c.Body, 1024, true); err != nil {
			return err
		}
		if len(c.Buttons) == 0 {
			return graphErr(n.ID, "config.buttons needs at least one button")
		}
		if err := CheckButtons(c.Buttons); err != nil {
			return graphErr(n.ID, "config.buttons: %s", err.Error())
		}
	case NodeAPICall, NodeWebhook:
		if err := checkRequest(n.ID, c); err != nil {
			return err
		}
		if len(c.BodyRaw) > MaxTextLength || utf8.RuneCountInString(c.Body) > MaxTextLength {
			return graphErr(n.ID, "config.body has at most %d characters", MaxTextLength)
		}
		if n.Type == NodeAPICall {
			if len(c.ResponseMapping) > MaxResponseMapping {
				return graphErr(n.ID, "config.response_mapping has at most %d entries", MaxResponseMapping)
			}
			for k, v := range c.ResponseMapping {
				if !identRe.MatchString(k) {
					return graphErr(n.ID, "config.response_mapping: %q is not a variable name", k)
				}
				if v == "" || len(v) > MaxPathLength {
					return graphErr(n.ID, "config.response_mapping.%s must be a path of 1 to %d characters", k, MaxPathLength)
				}
			}
			if err := text(n.ID, "message_template", c.MessageTemplate, MaxTextLength, false); err != nil {
				return err
			}
		}
	case NodeCondition:
		if err := text(n.ID, "expression", c.Expression, MaxExpression, true); err != nil {
			return err
		}
		if err := CheckCondition(c.Expression); err != nil {
			return graphErr(n.ID, "config.expression: %s", err.Error())
		}
	case NodeTiming:
		if err := CheckSchedule(c.Schedule); err != nil {
			return graphErr(n.ID, "config.schedule: %s", err.Error())
		}
	case NodeChatFlow:
		if strings.TrimSpace(c.FlowID) == "" {
			return graphErr(n.ID, "config.flow_id is required")
		}
		for _, f := range []struct {
			name, v string
			max     int
		}{{"header", c.Header, MaxShortText}, {"body", c.Body, 1024}, {"cta", c.CTA, 20}} {
			if err := text(n.ID, f.name, f.v, f.max, false); err != nil {
				return err
			}
		}
	case NodeGotoFlow:
		if strings.TrimSpace(c.FlowID) == "" {
			return graphErr(n.ID, "config.flow_id is required")
		}
	case NodeTransfer:
		if err := text(n.ID, "body", c.Body, MaxTextLength, false); err != nil {
			return err
		}
		if err := text(n.ID, "notes", c.Notes, MaxTextLength, false); err != nil {
			return err
		}
		if c.TeamID != "" && !isUUID(c.TeamID) {
			return graphErr(n.ID, "config.team_id must be a team id (uuid) or empty for the general queue")
		}
	}
	return nil
}

var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func checkRequest(node string, c *NodeConfig) error {
	if c.Method == "" {
		c.Method = "GET"
	}
	c.Method = strings.ToUpper(c.Method)
	if !slices.Contains(methods, c.Method) {
		return graphErr(node, "config.method must be one of %s", strings.Join(methods, ", "))
	}
	if err := CheckRequestURL(c.URL); err != nil {
		return graphErr(node, "config.url: %s", err.Error())
	}
	if err := CheckHeaders(c.Headers); err != nil {
		return graphErr(node, "config.headers: %s", err.Error())
	}
	return nil
}

// CheckRequestURL checks a URL the bot will call (api_call and webhook
// nodes, API contexts): http or https with a host, {{variables}} allowed.
// Addresses are checked again on every request (netguard).
func CheckRequestURL(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return fmt.Errorf("a URL is required")
	}
	probe, err := placeholder.URL(raw, placeholder.Sample)
	if err != nil {
		return err
	}
	if err := netguard.ValidateURL(probe, true); err != nil {
		return err
	}
	return nil
}

// CheckHeaders bounds request headers and refuses names or values that
// could split a header.
func CheckHeaders(h map[string]string) error {
	if len(h) > MaxHeaders {
		return fmt.Errorf("at most %d headers", MaxHeaders)
	}
	for k, v := range h {
		if k == "" || len(k) > 256 || strings.ContainsAny(k, " \r\n:\x00") {
			return fmt.Errorf("%q is not a valid header name", k)
		}
		if len(v) > MaxHeaderLength || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("the value of %s is too long or holds a line break", k)
		}
	}
	return nil
}

// CheckButtons checks reply buttons: at most 3, ids unique and non-empty
// (at most 256 bytes), titles non-empty and at most 20 characters.
func CheckButtons(bs []Button) error {
	if len(bs) > MaxButtons {
		return fmt.Errorf("at most %d buttons", MaxButtons)
	}
	ids := map[string]bool{}
	for _, b := range bs {
		switch {
		case strings.TrimSpace(b.ID) == "" || len(b.ID) > 256:
			return fmt.Errorf("every button needs an id of 1 to 256 bytes")
		case ids[b.ID]:
			return fmt.Errorf("the button id %q is used twice", b.ID)
		case strings.TrimSpace(b.Title) == "":
			return fmt.Errorf("button %q needs a title", b.ID)
		case utf8.RuneCountInString(b.Title) > MaxButtonTitle:
			return fmt.Errorf("the title of button %q has more than %d characters", b.ID, MaxButtonTitle)
		}
		ids[b.ID] = true
	}
	return nil
}

// CompileRegex compiles a user's pattern with Go's RE2 (linear time, no
// backtracking), case-insensitive, bounded in length.
func CompileRegex(p string) (*regexp.Regexp, error) {
	if len(p) > MaxRegexLength {
		return nil, fmt.Errorf("a pattern has at most %d characters", MaxRegexLength)
	}
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		return nil, fmt.Errorf("not a valid regular expression: %v", trimRegexErr(err))
	}
	return re, nil
}

func trimRegexErr(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// CompileCondition compiles a condition node's expression (expr-lang,
// package condition) against the session-variable environment: variables
// collected by the session are top-level names, unknown ones are nil. The
// result must be a boolean. The runtime runs the program with
// EvalCondition, within condition's budget.
func CompileCondition(expression string) (*condition.Program, error) {
	if len(expression) > MaxExpression {
		return nil, fmt.Errorf("an expression has at most %d characters", MaxExpression)
	}
	return condition.Compile(expression)
}

// CheckCondition is CompileCondition for a graph being saved: it also
// refuses an expression that exceeds the evaluation budget whatever the
// variables (condition.Check).
func CheckCondition(expression string) error {
	if len(expression) > MaxExpression {
		return fmt.Errorf("an expression has at most %d characters", MaxExpression)
	}
	return condition.Check(expression)
}

// EvalCondition runs a compiled condition over the session's variables.
// Errors: condition.ErrBudget (wrapped) for an evaluation over budget,
// or the expression's own.
func EvalCondition(p *condition.Program, vars map[string]any) (bool, error) {
	return p.Eval(vars)
}

// Substitute replaces {{name}} placeholders of a message text with the
// session's variables (missing ones become empty). Requests are filled by
// requestTemplate, which encodes each value for where it lands.
func Substitute(text string, vars map[string]any) string {
	return placeholder.Text(text, variables(vars))
}

func checkCondition(n *Node, cond string) error {
	var ok bool
	switch n.Type {
	case NodeMessage, NodeChatFlow, NodeWebhook:
		ok = cond == CondDefault
	case NodePrompt:
		ok = cond == CondDefault || cond == CondMaxRetries
	case NodeButtons:
		if id, found := strings.CutPrefix(cond, CondButtonPrefix); found {
			ok = slices.ContainsFunc(n.Conf.Buttons, func(b Button) bool { return b.ID == id })
			if !ok {
				return graphErr(n.ID, "edge condition %q names no button of the node", cond)
			}
		}
	case NodeAPICall:
		ok = cond == CondHTTP2xx || cond == CondHTTPNon2xx
	case NodeCondition:
		ok = cond == CondTrue || cond == CondFalse
	case NodeTiming:
		ok = cond == CondInHours || cond == CondOutOfHours
	default:
		return graphErr(n.ID, "a %s node ends the flow and has no outgoing edges", n.Type)
	}
	if !ok {
		return graphErr(n.ID, "edge condition %q is not an outcome of a %s node (%s)", cond, n.Type, strings.Join(Outcomes(n), ", "))
	}
	return nil
}

// Outcomes lists the edge conditions a node produces.
func Outcomes(n *Node) []string {
	switch n.Type {
	case NodeMessage, NodeChatFlow, NodeWebhook:
		return []string{CondDefault}
	case NodePrompt:
		return []string{CondDefault, CondMaxRetries}
	case NodeButtons:
		out := make([]string, len(n.Conf.Buttons))
		for i, b := range n.Conf.Buttons {
			out[i] = CondButtonPrefix + b.ID
		}
		return out
	case NodeAPICall:
		return []string{CondHTTP2xx, CondHTTPNon2xx}
	case NodeCondition:
		return []string{CondTrue, CondFalse}
	case NodeTiming:
		return []string{CondInHours, CondOutOfHours}
	}
	return nil
}

func checkReachable(g *Graph) error {
	next := map[string][]string{}
	for _, e := range g.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	seen := map[string]bool{g.EntryNode: true}
	queue := []string{g.EntryNode}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, to := range next[id] {
			if !seen[to] {
				seen[to] = true
				queue = append(queue, to)
			}
		}
	}
	for _, n := range g.Nodes {
		if !seen[n.ID] {
			return graphErr(n.ID, "the node cannot be reached from the entry node")
		}
	}
	return nil
}

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRe.MatchString(s) }
