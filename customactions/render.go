package customactions

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
)

// templateVar is a {{variable}} of an action's URL or body template.
var templateVar = regexp.MustCompile(`\{\{\s*([a-z_]+\.[a-z_]+)\s*\}\}`)

// Variables are the values a template may name: contact.id,
// contact.phone_number, contact.name, contact.profile_name, user.id,
// user.name, user.email, user.role, organization.id, organization.name.
type Variables map[string]string

// render replaces every known {{variable}} of tmpl by escape(value);
// unknown variables are left as written.
func render(tmpl string, vars Variables, escape func(string) string) string {
	return templateVar.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := templateVar.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			return m
		}
		return escape(v)
	})
}

// RenderJSON renders a body template whose variables stand inside JSON
// strings: each value is escaped as JSON string content, so a value cannot
// end the string or add members.
func RenderJSON(tmpl string, vars Variables) string { return render(tmpl, vars, jsonEscape) }

// RenderURL renders a URL template: each value is percent-encoded, so it
// stays within the path segment or query value it stands in (a space is
// %20, '/', '?', '&', '=' and '#' are encoded).
func RenderURL(tmpl string, vars Variables) string { return render(tmpl, vars, urlEscape) }

func jsonEscape(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

func urlEscape(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
