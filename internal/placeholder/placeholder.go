// Package placeholder fills the {{name}} placeholders of the requests the
// server makes on a user's behalf (chatbot api_call and webhook nodes, AI
// "api" contexts, custom action webhooks, IVR HTTP callbacks). The template
// is written by an organization's staff; the values come from anyone (a
// customer's WhatsApp text), so each value is encoded for the part of the
// request it lands in and can never change that request's structure: a
// URL's path, query or host, a JSON body's members, a header's lines.
//
// The package encodes only; what a name means (session variables, contact
// fields) and whether the filled URL may be called (netguard) belong to its
// callers.
package placeholder

import (
	"errors"
	"regexp"
	"strings"
)

// pattern matches a {{name}} placeholder: a name of letters, digits, '_'
// and '.', spaces allowed inside the braces.
var pattern = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}`)

// Values gives a placeholder's value by name; ok false leaves the
// placeholder as written.
type Values func(name string) (value string, ok bool)

// Map is Values over a map; names it lacks are left as written.
func Map(m map[string]string) Values {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// Sample gives every placeholder the value "x": a template filled with it
// is checked as the server will send it (an http URL with a host, JSON).
func Sample(string) (string, bool) { return "x", true }

// ErrControlCharacter is a header value that would hold a control
// character (a line break would start another header).
var ErrControlCharacter = errors.New("a value holds a line break or another control character")

// ErrDotSegment is a URL path segment that a value would make "." or
// "..", which a receiver resolves to another path.
var ErrDotSegment = errors.New("a value would make a URL path segment \".\" or \"..\"")

// ErrBrokenEscape is a JSON template with a placeholder right after a
// backslash inside a string: the value's first character would be taken
// as the escape's.
var ErrBrokenEscape = errors.New("a placeholder follows a backslash inside a JSON string")

// fill replaces every placeholder of tmpl with encode(value, at), at being
// the offset of the placeholder in tmpl; an encode error stops it.
func fill(tmpl string, vals Values, encode func(v string, at int) (string, error)) (string, error) {
	if !strings.Contains(tmpl, "{{") {
		return tmpl, nil
	}
	var b strings.Builder
	last := 0
	for _, m := range pattern.FindAllStringSubmatchIndex(tmpl, -1) {
		b.WriteString(tmpl[last:m[0]])
		last = m[1]
		v, ok := vals(tmpl[m[2]:m[3]])
		if !ok {
			b.WriteString(tmpl[m[0]:m[1]])
			continue
		}
		enc, err := encode(v, m[0])
		if err != nil {
			return "", err
		}
		b.WriteString(enc)
	}
	b.WriteString(tmpl[last:])
	return b.String(), nil
}

// Text fills a message text: values as written (nothing reads its
// structure).
func Text(tmpl string, vals Values) string {
	out, _ := fill(tmpl, vals, func(v string, _ int) (string, error) { return v, nil })
	return out
}

// Header fills a header value. A value holding a control character other
// than a tab (CR and LF would start another header) is refused with
// ErrControlCharacter.
func Header(tmpl string, vals Values) (string, error) {
	return fill(tmpl, vals, func(v string, _ int) (string, error) {
		if strings.ContainsFunc(v, isControl) {
			return "", ErrControlCharacter
		}
		return v, nil
	})
}

func isControl(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }
