package templates

import (
	"regexp"
	"slices"
	"strings"

	"switchboard/ent"
	"switchboard/ent/template"
)

// variableRE matches a template variable: {{1}} or {{first_name}}.
var variableRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_]+)\s*\}\}`)

// VariableNames returns the distinct variable names of text ("1", "2", or
// named ones such as "first_name") in order of first appearance.
func VariableNames(text string) []string {
	var out []string
	for _, m := range variableRE.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// HasVariable reports whether text holds a template variable.
func HasVariable(text string) bool { return variableRE.MatchString(text) }

// Render fills text's variables with values; variables without a value
// stay as they are.
func Render(text string, values map[string]string) string {
	return variableRE.ReplaceAllStringFunc(text, func(v string) string {
		if val, ok := values[variableRE.FindStringSubmatch(v)[1]]; ok {
			return val
		}
		return v
	})
}

// Vars are the variables a send of a template must fill.
type Vars struct {
	// Body are the body's variables in order of first appearance ("1",
	// "2", ... or named ones).
	Body []string
	// Header is the variable of a TEXT header, "" when it has none (the
	// platform allows at most one).
	Header string
	// URLButtons are the indexes (0-based, as the send's button_params
	// keys) of URL buttons whose URL has a variable.
	URLButtons []int
}

// Variables returns the variables of t: what template_params,
// header_params and button_params of a send (a message or a campaign)
// must fill.
func Variables(t *ent.Template) Vars {
	v := Vars{Body: VariableNames(t.BodyContent)}
	if t.HeaderType == template.HeaderTypeTEXT {
		if hv := VariableNames(t.HeaderContent); len(hv) > 0 {
			v.Header = hv[0]
		}
	}
	for i, b := range t.Buttons {
		typ, _ := b["type"].(string)
		link, _ := b["url"].(string)
		if strings.EqualFold(typ, ButtonURL) && HasVariable(link) {
			v.URLButtons = append(v.URLButtons, i)
		}
	}
	return v
}
