package placeholder

import (
	"net/url"
	"strings"
)

// urlPart is the part of a URL a placeholder stands in.
type urlPart int

const (
	partScheme urlPart = iota
	partAuthority
	partPath
	partQuery
	partFragment
)

// URL fills a URL template, each value percent-encoded for the part it
// stands in: in the path as one segment ('/', '?', '#' and '%' encoded;
// a segment a value would make "." or ".." is refused with ErrDotSegment,
// since receivers resolve it to another path, encoded or not); in the
// query, the fragment, the host or the scheme with everything but
// letters, digits and "-._~" encoded, so a value cannot add a parameter,
// end the query or change the host.
func URL(tmpl string, vals Values) (string, error) {
	if !strings.Contains(tmpl, "{{") {
		return tmpl, nil
	}
	w := &urlWriter{}
	last := 0
	for _, m := range pattern.FindAllStringSubmatchIndex(tmpl, -1) {
		if err := w.literal(tmpl[last:m[0]]); err != nil {
			return "", err
		}
		last = m[1]
		if v, ok := vals(tmpl[m[2]:m[3]]); ok {
			w.value(v)
		} else if err := w.literal(tmpl[m[0]:m[1]]); err != nil {
			return "", err
		}
	}
	if err := w.literal(tmpl[last:]); err != nil {
		return "", err
	}
	if err := w.endSegment(); err != nil {
		return "", err
	}
	return w.out.String(), nil
}

// urlWriter writes a filled URL, following which part it is in and, in
// the path, the segment being written.
type urlWriter struct {
	out      strings.Builder
	part     urlPart
	segment  strings.Builder // the path segment being written
	hasValue bool            // a value is in that segment
}

// literal writes template text, moving from part to part at "://", '/',
// '?' and '#'.
func (w *urlWriter) literal(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if w.part == partScheme {
			if strings.HasPrefix(s[i:], "://") {
				w.out.WriteString("://")
				i += 2
				w.part = partAuthority
				continue
			}
			w.out.WriteByte(c)
			continue
		}
		if w.part == partPath {
			if c == '/' || c == '?' || c == '#' {
				if err := w.endSegment(); err != nil {
					return err
				}
			} else {
				w.segment.WriteByte(c)
			}
		}
		w.part = nextPart(w.part, c)
		w.out.WriteByte(c)
	}
	return nil
}

// nextPart is the part that a delimiter c starts after the authority.
func nextPart(cur urlPart, c byte) urlPart {
	switch {
	case c == '#':
		return partFragment
	case c == '?' && cur < partQuery:
		return partQuery
	case c == '/' && cur == partAuthority:
		return partPath
	}
	return cur
}

// value writes a value encoded for the current part.
func (w *urlWriter) value(v string) {
	if w.part != partPath {
		w.out.WriteString(escapeComponent(v))
		return
	}
	enc := url.PathEscape(v)
	w.out.WriteString(enc)
	w.segment.WriteString(enc)
	w.hasValue = true
}

// endSegment closes the path segment being written, refusing one that a
// value made a dot segment.
func (w *urlWriter) endSegment() error {
	if w.part != partPath {
		return nil
	}
	seg, _ := url.PathUnescape(w.segment.String())
	hasValue := w.hasValue
	w.segment.Reset()
	w.hasValue = false
	if hasValue && (seg == "." || seg == "..") {
		return ErrDotSegment
	}
	return nil
}

// escapeComponent percent-encodes everything but the unreserved
// characters (a space as %20, which reads as a space in a query and
// elsewhere alike).
func escapeComponent(v string) string {
	return strings.ReplaceAll(url.QueryEscape(v), "+", "%20")
}
