package flows

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"switchboard/apperr"
)

// Bounds of a Flow JSON checked here. The platform takes files of up to
// 10 MB; a form a person fills in on a phone is far smaller.
const (
	MaxFlowJSONBytes = 1 << 20
	maxScreens       = 100
	maxComponents    = 5000
	maxDepth         = 24
	maxScreenID      = 100
)

// DefaultJSONVersion is the Flow JSON version of a new flow.
const DefaultJSONVersion = "6.0"

var (
	versionRE  = regexp.MustCompile(`^[0-9]{1,2}\.[0-9]{1,2}$`)
	screenIDRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// CheckFlowJSON checks a Flow JSON document as far as it can be checked
// without the platform: a version string "major.minor"; a non-empty
// screens array of objects, each with an id (letters, digits and
// underscores, not the reserved SUCCESS), unique, and a layout with a
// type and an array of children, each child (recursively through
// children, then, else and cases) an object with a type, and input names
// unique within a screen; at least one terminal screen; navigate actions
// and routing_model naming existing screens only. The error says where:
// "flow_json.screens[1] (DETAILS).layout.children[0]: ...". Errors:
// invalid.
func CheckFlowJSON(doc map[string]any) error {
	if len(doc) == 0 {
		return apperr.Invalidf("flow_json is empty")
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return apperr.Invalidf("flow_json cannot be encoded as JSON")
	}
	if len(b) > MaxFlowJSONBytes {
		return apperr.Invalidf("flow_json is larger than %d bytes", MaxFlowJSONBytes)
	}
	v, ok := doc["version"].(string)
	if !ok {
		return apperr.Invalidf("flow_json.version is required and must be a string such as %q", DefaultJSONVersion)
	}
	if !versionRE.MatchString(v) {
		return apperr.Invalidf("flow_json.version %q must be of the form major.minor, such as %q", truncate(v, 20), DefaultJSONVersion)
	}
	if dv, present := doc["data_api_version"]; present {
		if s, ok := dv.(string); !ok || !versionRE.MatchString(s) {
			return apperr.Invalidf("flow_json.data_api_version must be a string such as \"3.0\"")
		}
	}
	raw, ok := doc["screens"].([]any)
	if !ok {
		if _, isList := doc["screens"].([]map[string]any); isList {
			raw = anyList(doc["screens"].([]map[string]any))
		} else {
			return apperr.Invalidf("flow_json.screens is required and must be an array of screens")
		}
	}
	if len(raw) == 0 {
		return apperr.Invalidf("flow_json.screens must hold at least one screen")
	}
	if len(raw) > maxScreens {
		return apperr.Invalidf("flow_json.screens holds %d screens, at most %d are allowed", len(raw), maxScreens)
	}
	c := &checker{ids: map[string]int{}}
	screens := make([]map[string]any, len(raw))
	for i, s := range raw {
		m, ok := s.(map[string]any)
		if !ok {
			return apperr.Invalidf("flow_json.screens[%d] must be an object", i)
		}
		id, _ := m["id"].(string)
		switch {
		case id == "":
			return apperr.Invalidf("flow_json.screens[%d]: id is required", i)
		case len(id) > maxScreenID || !screenIDRE.MatchString(id):
			return apperr.Invalidf("flow_json.screens[%d]: id %q must be letters, digits and underscores (at most %d)", i, truncate(id, 40), maxScreenID)
		case id == "SUCCESS":
			return apperr.Invalidf("flow_json.screens[%d]: id SUCCESS is reserved by the platform", i)
		}
		if j, dup := c.ids[id]; dup {
			return apperr.Invalidf("flow_json.screens[%d]: id %q is already used by screens[%d]", i, id, j)
		}
		c.ids[id] = i
		screens[i] = m
	}
	terminal := false
	for i, m := range screens {
		at := fmt.Sprintf("flow_json.screens[%d] (%s)", i, m["id"])
		if err := c.screen(at, m); err != nil {
			return err
		}
		if t, _ := m["terminal"].(bool); t {
			terminal = true
		}
	}
	if !terminal {
		return apperr.Invalidf("flow_json.screens: no terminal screen (one screen needs \"terminal\": true)")
	}
	if rm, present := doc["routing_model"]; present {
		if err := c.routingModel(rm); err != nil {
			return err
		}
	}
	return nil
}

type checker struct {
	ids   map[string]int
	count int
	names map[string]string
}

func (c *checker) screen(at string, m map[string]any) error {
	for _, k := range []string{"terminal", "success", "refresh_on_back"} {
		if v, present := m[k]; present {
			if _, ok := v.(bool); !ok {
				return apperr.Invalidf("%s: %s must be true or false", at, k)
			}
		}
	}
	if t, present := m["title"]; present {
		if _, ok := t.(string); !ok {
			return apperr.Invalidf("%s: title must be a string", at)
		}
	}
	if d, present := m["data"]; present {
		if _, ok := d.(map[string]any); !ok {
			return apperr.Invalidf("%s: data must be an object", at)
		}
	}
	layout, ok := m["layout"].(map[string]any)
	if !ok {
		return apperr.Invalidf("%s: layout is required and must be an object", at)
	}
	if t, _ := layout["type"].(string); t == "" {
		return apperr.Invalidf("%s.layout: type is required (such as \"SingleColumnLayout\")", at)
	}
	children, ok := layout["children"].([]any)
	if !ok {
		return apperr.Invalidf("%s.layout: children is required and must be an array of components", at)
	}
	c.names = map[string]string{}
	return c.components(at+".layout.children", children, 1)
}

// components checks a list of components and, recursively, the lists
// they hold.
func (c *checker) components(at string, list []any, depth int) error {
	if depth > maxDepth {
		return apperr.Invalidf("%s: components are nested deeper than %d levels", at, maxDepth)
	}
	for i, raw := range list {
		here := at + "[" + strconv.Itoa(i) + "]"
		m, ok := raw.(map[string]any)
		if !ok {
			return apperr.Invalidf("%s: a component must be an object", here)
		}
		c.count++
		if c.count > maxComponents {
			return apperr.Invalidf("flow_json holds more than %d components", maxComponents)
		}
		t, _ := m["type"].(string)
		if t == "" {
			return apperr.Invalidf("%s: type is required (such as \"TextInput\" or \"Footer\")", here)
		}
		here += " (" + truncate(t, 40) + ")"
		if n, present := m["name"]; present && t != "Form" {
			name, ok := n.(string)
			if !ok || name == "" {
				return apperr.Invalidf("%s: name must be a non-empty string", here)
			}
			if prev, dup := c.names[name]; dup {
				return apperr.Invalidf("%s: name %q is already used by %s on this screen", here, truncate(name, 40), prev)
			}
			c.names[name] = here
		}
		if err := c.actions(here, m); err != nil {
			return err
		}
		for _, k := range []string{"children", "then", "else"} {
			v, present := m[k]
			if !present {
				continue
			}
			sub, ok := v.([]any)
			if !ok {
				return apperr.Invalidf("%s: %s must be an array of components", here, k)
			}
			if err := c.components(here+"."+k, sub, depth+1); err != nil {
				return err
			}
		}
		if v, present := m["cases"]; present {
			cases, ok := v.(map[string]any)
			if !ok {
				return apperr.Invalidf("%s: cases must be an object of component arrays", here)
			}
			for _, k := range sortedKeys(cases) {
				sub, ok := cases[k].([]any)
				if !ok {
					return apperr.Invalidf("%s.cases[%q] must be an array of components", here, truncate(k, 40))
				}
				if err := c.components(fmt.Sprintf("%s.cases[%q]", here, truncate(k, 40)), sub, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// actions checks that a component's navigate actions name existing
// screens.
func (c *checker) actions(at string, m map[string]any) error {
	for _, k := range sortedKeys(m) {
		if !strings.HasPrefix(k, "on-") || !strings.HasSuffix(k, "-action") {
			continue
		}
		a, ok := m[k].(map[string]any)
		if !ok {
			return apperr.Invalidf("%s: %s must be an object", at, k)
		}
		if name, _ := a["name"].(string); name != "navigate" {
			continue
		}
		next, _ := a["next"].(map[string]any)
		target, _ := next["name"].(string)
		if target == "" {
			return apperr.Invalidf("%s: %s navigates without next.name", at, k)
		}
		if _, ok := c.ids[target]; !ok {
			return apperr.Invalidf("%s: %s navigates to screen %q, which does not exist", at, k, truncate(target, 40))
		}
	}
	return nil
}

// routingModel checks that the routing model maps existing screens to
// lists of existing screens.
func (c *checker) routingModel(v any) error {
	rm, ok := v.(map[string]any)
	if !ok {
		return apperr.Invalidf("flow_json.routing_model must be an object of screen id to next screen ids")
	}
	for _, from := range sortedKeys(rm) {
		if _, ok := c.ids[from]; !ok {
			return apperr.Invalidf("flow_json.routing_model: screen %q does not exist", truncate(from, 40))
		}
		to, ok := rm[from].([]any)
		if !ok {
			return apperr.Invalidf("flow_json.routing_model[%q] must be an array of screen ids", from)
		}
		for i, t := range to {
			id, _ := t.(string)
			if _, ok := c.ids[id]; !ok {
				return apperr.Invalidf("flow_json.routing_model[%q][%d]: screen %q does not exist", from, i, truncate(id, 40))
			}
		}
	}
	return nil
}

// ParseFlowJSON decodes a Flow JSON file and checks it with CheckFlowJSON.
// Errors: invalid.
func ParseFlowJSON(b []byte) (map[string]any, error) {
	if len(b) > MaxFlowJSONBytes {
		return nil, apperr.Invalidf("flow_json is larger than %d bytes", MaxFlowJSONBytes)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, apperr.Invalidf("flow_json is not a JSON object: %v", err)
	}
	if err := CheckFlowJSON(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// screensOf returns the screens of a Flow JSON document as stored in the
// flow's screens field.
func screensOf(doc map[string]any) []map[string]any {
	out := []map[string]any{}
	switch s := doc["screens"].(type) {
	case []any:
		for _, v := range s {
			if m, ok := v.(map[string]any); ok {
				out = append(out, m)
			}
		}
	case []map[string]any:
		out = append(out, s...)
	}
	return out
}

func anyList(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
