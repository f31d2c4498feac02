// Package ivr owns IVR menu graphs: reading and validating the `menu`
// object of an IVR flow (Parse, Validate) and running it on a live call
// through the Call interface (Run). It knows nothing of media, storage or
// HTTP clients: those come in through Call and Checker.
package ivr

import (
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
)

// Version is the graph format the peer web UI saves (version 2).
const Version = 2

// Bounds of a graph.
const (
	MaxNodes          = 200
	MaxEdges          = 1000
	MaxNodeIDLength   = 64
	MaxLabelLength    = 200
	MaxTextLength     = 1000 // one spoken text
	MaxBodyLength     = 16 << 10
	MaxHeaders        = 20
	MaxHeaderLength   = 4096
	MaxFileNameLength = 255
	MaxVariableName   = 64
	MaxScheduleDays   = 7
	// MaxFlowHops bounds goto_flow jumps in one call: the caller of Run
	// follows at most this many.
	MaxFlowHops = 10
)

// Node types.
const (
	NodeGreeting     = "greeting"
	NodeMenu         = "menu"
	NodeGather       = "gather"
	NodeHTTPCallback = "http_callback"
	NodeTransfer     = "transfer"
	NodeGotoFlow     = "goto_flow"
	NodeTiming       = "timing"
	NodeHangup       = "hangup"
)

// NodeTypes lists every node type.
var NodeTypes = []string{NodeGreeting, NodeMenu, NodeGather, NodeHTTPCallback, NodeTransfer,
	NodeGotoFlow, NodeTiming, NodeHangup}

// Outcomes (edge conditions). A menu's digit outcome is OutcomeDigitPrefix
// followed by the digit ("digit:1").
const (
	OutcomeDefault      = "default"
	OutcomeDigitPrefix  = "digit:"
	OutcomeTimeout      = "timeout"
	OutcomeMaxRetries   = "max_retries"
	OutcomeHTTP2xx      = "http:2xx"
	OutcomeHTTPNon2xx   = "http:non2xx"
	OutcomeCompleted    = "completed"
	OutcomeNoAnswer     = "no_answer"
	OutcomeAbandoned    = "abandoned"
	OutcomeInHours      = "in_hours"
	OutcomeOutOfHours   = "out_of_hours"
	defaultTimeout      = 10 * time.Second
	defaultMaxRetries   = 3
	defaultMaxDigits    = 10
	defaultHTTPTimeout  = 10 * time.Second
	maxMenuTimeoutSecs  = 60
	maxHTTPTimeoutSecs  = 30
	maxRetriesUpper     = 10
	maxGatherDigitsUpTo = 32
)

// Graph is a parsed, structurally valid IVR menu.
type Graph struct {
	Version   int
	EntryNode string
	Nodes     []*Node
	Edges     []Edge
	// Implicit is true when the menu had no edges and they were derived
	// from the order of the nodes.
	Implicit bool

	byID map[string]*Node
	next map[edgeKey]string
}

type edgeKey struct{ from, condition string }

// Edge leads from a node to the next one for one outcome (Condition).
type Edge struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Condition string `json:"condition"`
}

// Node is one step of the graph with its typed config: exactly one of the
// config pointers is set, the one of its Type.
type Node struct {
	ID    string
	Type  string
	Label string

	Greeting *Greeting
	Menu     *Menu
	Gather   *Gather
	HTTP     *HTTPCallback
	Transfer *Transfer
	GotoFlow *GotoFlow
	Timing   *Timing
	Hangup   *Hangup
}

// Prompt is something played to the caller: the audio file when one is
// named, else Text spoken with TTS. Interruptible prompts stop at the
// caller's first key press.
type Prompt struct {
	AudioFile     string
	Text          string
	Interruptible bool
}

// Empty reports whether the prompt plays nothing.
func (p Prompt) Empty() bool { return p.AudioFile == "" && p.Text == "" }

// Greeting plays a prompt. Outcome default.
type Greeting struct {
	Prompt Prompt
}

// Menu plays a prompt and waits for one key among Options (digit → label).
// Outcomes digit:<d>, timeout, max_retries.
type Menu struct {
	Prompt     Prompt
	Options    map[rune]string
	Timeout    time.Duration
	MaxRetries int
	// Invalid is played after a key that is no option (may be empty).
	Invalid Prompt
}

// Gather plays a prompt and collects up to MaxDigits keys, ended by
// Terminator or a pause of Timeout, into the variable StoreAs.
// Outcomes default, max_retries.
type Gather struct {
	Prompt     Prompt
	MaxDigits  int
	Terminator rune
	Timeout    time.Duration
	MaxRetries int
	StoreAs    string
}

// HTTPCallback calls a URL; {{var}} placeholders in the URL, headers and
// body are filled from the call's variables. Outcomes http:2xx,
// http:non2xx.
type HTTPCallback struct {
	URL     string
	Method  string
	Headers map[string]string
	Body    string
	Timeout time.Duration
	StoreAs string
}

// Transfer hands the caller to a team (or one of its agents; AgentID is
// uuid.Nil for any). Outcomes completed, no_answer, abandoned when the
// node has outgoing edges; without them it ends the IVR.
type Transfer struct {
	TeamID  uuid.UUID
	AgentID uuid.UUID
}

// GotoFlow leaves this graph for another IVR flow. Terminal.
type GotoFlow struct {
	FlowID uuid.UUID
}

// Timing branches on a weekly schedule. Outcomes in_hours, out_of_hours.
type Timing struct {
	Schedule []Day
}

// Day is one weekday's opening hours, minutes since midnight, [Open, Close).
type Day struct {
	Weekday time.Weekday
	Enabled bool
	Open    int
	Close   int
}

// Hangup plays an optional goodbye and ends the call. Terminal.
type Hangup struct {
	Goodbye Prompt
}

// Node returns the node with id, or nil.
func (g *Graph) Node(id string) *Node { return g.byID[id] }

// Next returns the node an edge from nodeID with outcome leads to.
func (g *Graph) Next(nodeID, outcome string) (string, bool) {
	to, ok := g.next[edgeKey{nodeID, outcome}]
	return to, ok
}

// HasEdgesFrom reports whether any edge leaves nodeID.
func (g *Graph) HasEdgesFrom(nodeID string) bool {
	for _, e := range g.Edges {
		if e.From == nodeID {
			return true
		}
	}
	return false
}

// Outcomes lists the outcomes a node can produce (the conditions its
// edges may carry); terminal nodes have none.
func (n *Node) Outcomes() []string {
	switch n.Type {
	case NodeGreeting:
		return []string{OutcomeDefault}
	case NodeMenu:
		out := make([]string, 0, len(n.Menu.Options)+2)
		for d := range n.Menu.Options {
			out = append(out, OutcomeDigitPrefix+string(d))
		}
		slices.Sort(out)
		return append(out, OutcomeTimeout, OutcomeMaxRetries)
	case NodeGather:
		return []string{OutcomeDefault, OutcomeMaxRetries}
	case NodeHTTPCallback:
		return []string{OutcomeHTTP2xx, OutcomeHTTPNon2xx}
	case NodeTransfer:
		return []string{OutcomeCompleted, OutcomeNoAnswer, OutcomeAbandoned}
	case NodeTiming:
		return []string{OutcomeInHours, OutcomeOutOfHours}
	}
	return nil
}

// AudioFiles lists the audio file names the node plays.
func (n *Node) AudioFiles() []string {
	var files []string
	add := func(p Prompt) {
		if p.AudioFile != "" {
			files = append(files, p.AudioFile)
		}
	}
	switch {
	case n.Greeting != nil:
		add(n.Greeting.Prompt)
	case n.Menu != nil:
		add(n.Menu.Prompt)
		add(n.Menu.Invalid)
	case n.Gather != nil:
		add(n.Gather.Prompt)
	case n.Hangup != nil:
		add(n.Hangup.Goodbye)
	}
	return files
}

// graphErr is an invalid-menu error about the menu as a whole.
func graphErr(format string, args ...any) error {
	return apperr.Invalidf("menu: %s", fmt.Sprintf(format, args...))
}

// nodeErr is an invalid-menu error naming the node at fault.
func nodeErr(id, format string, args ...any) error {
	return apperr.Invalidf("menu node %q: %s", id, fmt.Sprintf(format, args...))
}
