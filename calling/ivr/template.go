package ivr

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"

	"switchboard/netguard"
)

// placeholder matches a {{name}} variable in a text, URL, header or body.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// sampleValue stands for every variable when a template is checked.
const sampleValue = "x"

// expand fills {{name}} placeholders from vars; unknown names become
// empty. escape, when set, encodes each value (URLs, JSON strings).
func expand(tmpl string, vars map[string]string, escape func(string) string) string {
	if !strings.Contains(tmpl, "{{") {
		return tmpl
	}
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		v := vars[placeholder.FindStringSubmatch(m)[1]]
		if escape != nil {
			return escape(v)
		}
		return v
	})
}

// escapeURLValue encodes a value so it stays one path segment or query
// value wherever the placeholder sits (no "&", "=", "/", "?" or "#").
func escapeURLValue(v string) string {
	return strings.ReplaceAll(url.QueryEscape(v), "+", "%20")
}

// escapeJSONString encodes a value for use inside a JSON string literal.
func escapeJSONString(v string) string {
	b, _ := json.Marshal(v)
	return string(b[1 : len(b)-1])
}

// expandBody fills a request body: when the template is JSON (checked
// with sample values), values are escaped as JSON string content so a
// caller's input cannot change the document's shape.
func expandBody(tmpl string, vars map[string]string) string {
	if json.Valid([]byte(expand(tmpl, nil, func(string) string { return sampleValue }))) {
		return expand(tmpl, vars, escapeJSONString)
	}
	return expand(tmpl, vars, nil)
}

// checkURLFormat checks a URL template when a menu is parsed: an absolute
// http or https URL with a host once variables are filled. The address
// policy is Validate's (it depends on the server's settings).
func checkURLFormat(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("a URL is required")
	}
	return netguard.ValidateURL(expand(raw, nil, func(string) string { return sampleValue }), true)
}

// checkURLAddress applies netguard's outbound rules to a URL template.
func checkURLAddress(raw string, allowPrivate bool) error {
	return netguard.ValidateURL(expand(raw, nil, func(string) string { return sampleValue }), allowPrivate)
}
