package ivr

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Config keys each node type accepts; any other key is refused.
var configKeys = map[string][]string{
	NodeGreeting:     {"greeting_text", "audio_file", "interruptible"},
	NodeMenu:         {"audio_file", "prompt_text", "options", "timeout_seconds", "max_retries", "invalid_text", "invalid_audio_file"},
	NodeGather:       {"audio_file", "prompt_text", "max_digits", "terminator", "timeout_seconds", "max_retries", "store_as"},
	NodeHTTPCallback: {"url", "method", "headers", "body_template", "timeout_seconds", "response_store_as"},
	NodeTransfer:     {"team_id", "agent_id"},
	NodeGotoFlow:     {"flow_id"},
	NodeTiming:       {"schedule"},
	NodeHangup:       {"goodbye_text", "audio_file"},
}

// parseConfig checks a node's config and fills its typed form.
func parseConfig(n *Node, cfg map[string]any) error {
	f := &fields{node: n.ID, cfg: cfg}
	f.allow(n.Type)
	switch n.Type {
	case NodeGreeting:
		n.Greeting = &Greeting{Prompt: Prompt{
			Text: f.text("greeting_text", MaxTextLength), AudioFile: f.audioFile("audio_file"),
			Interruptible: f.flag("interruptible"),
		}}
	case NodeMenu:
		n.Menu = f.menu()
	case NodeGather:
		n.Gather = f.gather()
	case NodeHTTPCallback:
		n.HTTP = f.httpCallback()
	case NodeTransfer:
		n.Transfer = &Transfer{TeamID: f.uuid("team_id", true), AgentID: f.uuid("agent_id", false)}
	case NodeGotoFlow:
		n.GotoFlow = &GotoFlow{FlowID: f.uuid("flow_id", true)}
	case NodeTiming:
		n.Timing = &Timing{Schedule: f.schedule("schedule")}
	case NodeHangup:
		n.Hangup = &Hangup{Goodbye: Prompt{Text: f.text("goodbye_text", MaxTextLength), AudioFile: f.audioFile("audio_file")}}
	}
	return f.err
}

// fields reads a config object; the first problem is kept in err.
type fields struct {
	node string
	cfg  map[string]any
	err  error
}

func (f *fields) fail(key, format string, args ...any) {
	if f.err == nil {
		f.err = nodeErr(f.node, "%s: %s", key, fmt.Sprintf(format, args...))
	}
}

// get returns a key's value; null counts as absent.
func (f *fields) get(key string) (any, bool) {
	v, ok := f.cfg[key]
	return v, ok && v != nil
}

func (f *fields) allow(nodeType string) {
	keys := make([]string, 0, len(f.cfg))
	for k := range f.cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(configKeys[nodeType], k) {
			f.fail(k, "is not a setting of a %s node (%s)", nodeType, joinQuoted(configKeys[nodeType]))
		}
	}
}

func (f *fields) text(key string, max int) string {
	v, ok := f.get(key)
	if !ok {
		return ""
	}
	s, ok := v.(string)
	switch {
	case !ok:
		f.fail(key, "must be a string")
	case !utf8.ValidString(s):
		f.fail(key, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > max:
		f.fail(key, "must be at most %d characters", max)
	}
	return s
}

func (f *fields) flag(key string) bool {
	v, ok := f.get(key)
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		f.fail(key, "must be true or false")
	}
	return b
}

// integer reads a whole number from min to max (def when absent).
func (f *fields) integer(key string, min, max, def int) int {
	v, ok := f.get(key)
	if !ok {
		return def
	}
	n, ok := number(v)
	if !ok || n != math.Trunc(n) || n < float64(min) || n > float64(max) {
		f.fail(key, "must be a whole number from %d to %d", min, max)
		return def
	}
	return int(n)
}

// seconds reads a duration in seconds from 1 to max (def when absent).
func (f *fields) seconds(key string, max int, def time.Duration) time.Duration {
	v, ok := f.get(key)
	if !ok {
		return def
	}
	n, ok := number(v)
	if !ok || n < 1 || n > float64(max) {
		f.fail(key, "must be a number of seconds from 1 to %d", max)
		return def
	}
	return time.Duration(n * float64(time.Second))
}

// audioFile reads the name of a stored audio file: a plain file name,
// never a path.
func (f *fields) audioFile(key string) string {
	name := f.text(key, MaxFileNameLength)
	if name != "" && (strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".")) {
		f.fail(key, "must be the name of an uploaded audio file")
	}
	return name
}

// variableNamePattern is a variable name store_as may set.
var variableNamePattern = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func (f *fields) variable(key string) string {
	name := f.text(key, MaxVariableName)
	if name != "" && !variableNamePattern.MatchString(name) {
		f.fail(key, "must be a variable name of lowercase letters, digits and underscores, not starting with a digit")
	}
	return name
}

func (f *fields) uuid(key string, required bool) uuid.UUID {
	v, ok := f.get(key)
	if !ok || v == "" {
		if required {
			f.fail(key, "is required")
		}
		return uuid.Nil
	}
	s, ok := v.(string)
	id, err := uuid.Parse(s)
	if !ok || err != nil || len(s) != 36 {
		f.fail(key, "must be an id (uuid)")
		return uuid.Nil
	}
	return id
}

// prompt reads the prompt_text/audio_file pair of menu and gather nodes.
func (f *fields) prompt() Prompt {
	return Prompt{Text: f.text("prompt_text", MaxTextLength), AudioFile: f.audioFile("audio_file"), Interruptible: true}
}

func (f *fields) menu() *Menu {
	return &Menu{
		Prompt:     f.prompt(),
		Options:    f.options("options"),
		Timeout:    f.seconds("timeout_seconds", maxMenuTimeoutSecs, defaultTimeout),
		MaxRetries: f.integer("max_retries", 1, maxRetriesUpper, defaultMaxRetries),
		Invalid:    Prompt{Text: f.text("invalid_text", MaxTextLength), AudioFile: f.audioFile("invalid_audio_file")},
	}
}

// keys are the DTMF keys a caller can press.
const keys = "0123456789*#"

func (f *fields) options(key string) map[rune]string {
	v, ok := f.get(key)
	if !ok {
		f.fail(key, "at least one option is required")
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		f.fail(key, "must be an object of key → {label}")
		return nil
	}
	if len(obj) == 0 {
		f.fail(key, "at least one option is required")
	}
	opts := map[rune]string{}
	for _, digit := range slices.Sorted(maps.Keys(obj)) {
		if utf8.RuneCountInString(digit) != 1 || !strings.Contains(keys, digit) {
			f.fail(key, "digit %q is not a key (0-9, * or #)", digit)
			return nil
		}
		opts[rune(digit[0])] = f.optionLabel(key, digit, obj[digit])
	}
	return opts
}

func (f *fields) optionLabel(key, digit string, v any) string {
	if v == nil {
		return ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		f.fail(key, "digit %q must be an object {label}", digit)
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if k != "label" {
			f.fail(key, "digit %q: %q is not a setting of an option (label)", digit, k)
		}
	}
	raw := obj["label"]
	if raw == nil {
		return ""
	}
	label, ok := raw.(string)
	if !ok || utf8.RuneCountInString(label) > MaxLabelLength {
		f.fail(key, "digit %q: label must be a string of at most %d characters", digit, MaxLabelLength)
	}
	return label
}

func (f *fields) gather() *Gather {
	g := &Gather{
		Prompt:     f.prompt(),
		MaxDigits:  f.integer("max_digits", 1, maxGatherDigitsUpTo, defaultMaxDigits),
		Terminator: '#',
		Timeout:    f.seconds("timeout_seconds", maxMenuTimeoutSecs, defaultTimeout),
		MaxRetries: f.integer("max_retries", 1, maxRetriesUpper, defaultMaxRetries),
		StoreAs:    f.variable("store_as"),
	}
	switch t := f.text("terminator", 1); t {
	case "", "#":
	case "*":
		g.Terminator = '*'
	default:
		f.fail("terminator", `must be "#" or "*"`)
	}
	return g
}

var httpMethods = []string{"GET", "POST", "PUT", "PATCH"}

func (f *fields) httpCallback() *HTTPCallback {
	h := &HTTPCallback{
		URL:     f.text("url", 2048),
		Method:  strings.ToUpper(f.text("method", 10)),
		Headers: f.headers("headers"),
		Body:    f.text("body_template", MaxBodyLength),
		Timeout: f.seconds("timeout_seconds", maxHTTPTimeoutSecs, defaultHTTPTimeout),
		StoreAs: f.variable("response_store_as"),
	}
	if h.Method == "" {
		h.Method = "GET"
	}
	if !slices.Contains(httpMethods, h.Method) {
		f.fail("method", "must be one of %s", strings.Join(httpMethods, ", "))
	}
	if f.err == nil {
		if err := checkURLFormat(h.URL); err != nil {
			f.fail("url", "%s", err.Error())
		}
	}
	return h
}

func (f *fields) headers(key string) map[string]string {
	v, ok := f.get(key)
	if !ok {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		f.fail(key, "must be an object of name → value")
		return nil
	}
	if len(obj) > MaxHeaders {
		f.fail(key, "at most %d headers", MaxHeaders)
	}
	out := make(map[string]string, len(obj))
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		value, ok := obj[name].(string)
		switch {
		case name == "" || len(name) > 256 || strings.ContainsAny(name, " \t\r\n:\x00"):
			f.fail(key, "%q is not a valid header name", name)
		case !ok:
			f.fail(key, "the value of %s must be a string", name)
		case len(value) > MaxHeaderLength || strings.ContainsAny(value, "\r\n\x00"):
			f.fail(key, "the value of %s is too long or holds a line break", name)
		}
		out[name] = value
	}
	return out
}

// weekdays maps the schedule's day names.
var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// scheduleKeys are a schedule day's settings: open/close, or the peer
// web UI's start_time/end_time.
var scheduleKeys = []string{"day", "enabled", "open", "close", "start_time", "end_time"}

func (f *fields) schedule(key string) []Day {
	v, ok := f.get(key)
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		f.fail(key, "must be an array of {day, enabled, open, close}")
		return nil
	}
	if len(list) > MaxScheduleDays {
		f.fail(key, "at most %d days", MaxScheduleDays)
		return nil
	}
	seen := map[time.Weekday]bool{}
	days := make([]Day, 0, len(list))
	for i, item := range list {
		d, err := scheduleDay(item)
		if err != "" {
			f.fail(key, "[%d]: %s", i, err)
			return nil
		}
		if seen[d.Weekday] {
			f.fail(key, "[%d]: %s is listed twice", i, strings.ToLower(d.Weekday.String()))
			return nil
		}
		seen[d.Weekday] = true
		days = append(days, d)
	}
	return days
}

// scheduleDay reads one day; the string is the problem, if any.
func scheduleDay(item any) (Day, string) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Day{}, "must be an object {day, enabled, open, close}"
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(scheduleKeys, k) {
			return Day{}, fmt.Sprintf("%q is not a setting of a day (%s)", k, joinQuoted(scheduleKeys))
		}
	}
	name, _ := obj["day"].(string)
	wd, ok := weekdays[strings.ToLower(name)]
	if !ok {
		return Day{}, "day must be monday to sunday"
	}
	d := Day{Weekday: wd}
	if e, present := obj["enabled"]; present && e != nil {
		if d.Enabled, ok = e.(bool); !ok {
			return Day{}, "enabled must be true or false"
		}
	}
	openRaw, closeRaw := firstOf(obj, "open", "start_time"), firstOf(obj, "close", "end_time")
	if !d.Enabled && openRaw == nil && closeRaw == nil {
		return d, ""
	}
	openS, _ := openRaw.(string)
	closeS, _ := closeRaw.(string)
	var ok1, ok2 bool
	d.Open, ok1 = parseClock(openS)
	d.Close, ok2 = parseClock(closeS)
	if !ok1 || !ok2 {
		return Day{}, "open and close must be times HH:MM"
	}
	if d.Enabled && d.Open >= d.Close {
		return Day{}, "open must be before close"
	}
	return d, ""
}

func firstOf(obj map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := obj[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// parseClock reads HH:MM (00:00 to 23:59, or 24:00 for the end of the
// day) as minutes since midnight.
func parseClock(s string) (int, bool) {
	t, err := time.Parse("15:04", s)
	if err == nil && len(s) == 5 {
		return t.Hour()*60 + t.Minute(), true
	}
	if s == "24:00" {
		return 24 * 60, true
	}
	return 0, false
}

// number reads a JSON number as decoded by encoding/json (float64 or
// json.Number) or set from Go code (ints).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func joinQuoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
