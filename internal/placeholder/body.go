package placeholder

import (
	"encoding/json"
	"mime"
	"net/url"
	"strings"
)

// JSON fills a JSON template, each value encoded as a JSON string in the
// template's structure: inside a string literal ("Hi {{name}}") as that
// string's content, escaped without its quotes; standing alone as a value
// ({"id": {{id}}}) as a quoted string. So a value never ends a string or
// adds a member, whatever it holds. A placeholder right after a backslash
// inside a string is refused with ErrBrokenEscape.
func JSON(tmpl string, vals Values) (string, error) {
	if !strings.Contains(tmpl, "{{") {
		return tmpl, nil
	}
	var r jsonReader
	read := 0
	return fill(tmpl, vals, func(v string, at int) (string, error) {
		r.read(tmpl[read:at])
		read = at
		if !r.inString {
			return jsonString(v), nil
		}
		if r.escaped {
			return "", ErrBrokenEscape
		}
		s := jsonString(v)
		return s[1 : len(s)-1], nil
	})
}

// jsonReader follows whether a JSON text read so far is inside a string.
type jsonReader struct {
	inString bool
	escaped  bool // the last character was a backslash inside a string
}

func (r *jsonReader) read(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !r.inString:
			r.inString = c == '"'
		case r.escaped:
			r.escaped = false
		case c == '\\':
			r.escaped = true
		case c == '"':
			r.inString = false
		}
	}
}

// jsonString is v as a quoted JSON string ('<', '>' and '&' as written).
func jsonString(v string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// Form fills an application/x-www-form-urlencoded template: each value is
// query-escaped, so it cannot add a field.
func Form(tmpl string, vals Values) string {
	out, _ := fill(tmpl, vals, func(v string, _ int) (string, error) { return url.QueryEscape(v), nil })
	return out
}

// Body fills a request body by its content type: a JSON type as JSON, a
// form as a form, any other type (text/plain) as text. Without a type (or
// with one that cannot be read) the template's shape decides: JSON when
// it is JSON once filled, else a form (a body like "id={{id}}&x=1"), so a
// value can add neither a member nor a field.
func Body(tmpl, contentType string, vals Values) (string, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case err != nil:
		if IsJSON(tmpl) {
			return JSON(tmpl, vals)
		}
		return Form(tmpl, vals), nil
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return JSON(tmpl, vals)
	case mt == "application/x-www-form-urlencoded":
		return Form(tmpl, vals), nil
	}
	return Text(tmpl, vals), nil
}

// IsJSON reports whether a template is a JSON text once filled (its
// placeholders inside strings or standing as values).
func IsJSON(tmpl string) bool {
	s, err := JSON(tmpl, Sample)
	return err == nil && json.Valid([]byte(s))
}
