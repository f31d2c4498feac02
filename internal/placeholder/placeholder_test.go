package placeholder_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"switchboard/internal/placeholder"
)

func values(v string) placeholder.Values {
	return placeholder.Map(map[string]string{"v": v, "id": "42"})
}

// TestURLInjection: a value stays the one path segment, query value,
// fragment or host label it stands in.
func TestURLInjection(t *testing.T) {
	const tmpl = "https://api.example.com/orders/{{v}}/items?id={{id}}&q={{v}}#{{v}}"
	cases := []struct {
		name, value string
		segment     string // the escaped second path segment
	}{
		{"Plain", "abc", "abc"},
		{"Traversal", "../../admin/delete", "..%2F..%2Fadmin%2Fdelete"},
		{"Parameter", "a&tenant=other", "a&tenant=other"},
		{"Query", "a?tenant=other", "a%3Ftenant=other"},
		{"Fragment", "a#x", "a%23x"},
		{"Percent", "%2F..%2F", "%252F..%252F"},
		{"Space", "a b+c", "a%20b+c"},
		{"Unicode", "ñandú", "%C3%B1and%C3%BA"},
		{"LineBreak", "a\r\nb", "a%0D%0Ab"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := placeholder.URL(tmpl, values(c.value))
			if err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			segs := strings.Split(u.EscapedPath(), "/")
			if u.Host != "api.example.com" || len(segs) != 4 || segs[1] != "orders" || segs[3] != "items" {
				t.Fatalf("%s: host %q path %q", out, u.Host, u.EscapedPath())
			}
			if segs[2] != c.segment {
				t.Errorf("segment %q, want %q", segs[2], c.segment)
			}
			if got, _ := url.PathUnescape(segs[2]); got != c.value {
				t.Errorf("segment decodes to %q", got)
			}
			q := u.Query()
			if len(q) != 2 || q.Get("id") != "42" || q.Get("q") != c.value {
				t.Errorf("query %v", q)
			}
			if u.Fragment != c.value {
				t.Errorf("fragment %q", u.Fragment)
			}
		})
	}
}

func TestURLParts(t *testing.T) {
	cases := []struct {
		name, tmpl, value, want string
		err                     error
	}{
		{"NoPlaceholder", "https://a.example/x?y=1", "", "https://a.example/x?y=1", nil},
		{"Host", "https://{{v}}.example.com/x", "evil.com/x?", "https://evil.com%2Fx%3F.example.com/x", nil},
		{"HostAt", "https://{{v}}.example.com/", "u@evil", "https://u%40evil.example.com/", nil},
		{"QueryKey", "https://a.example/?{{v}}=1", "a=b&c", "https://a.example/?a%3Db%26c=1", nil},
		{"FragmentAfterQuery", "https://a.example/p?x=1#{{v}}", "a&b=c", "https://a.example/p?x=1#a%26b%3Dc", nil},
		{"QuestionInFragment", "https://a.example/p#f?{{v}}", "a b", "https://a.example/p#f?a%20b", nil},
		{"DotDotSegment", "https://a.example/a/{{v}}/b", "..", "", placeholder.ErrDotSegment},
		{"DotSegment", "https://a.example/a/{{v}}", ".", "", placeholder.ErrDotSegment},
		{"DotsFromTwoValues", "https://a.example/a/{{v}}{{v}}/b", ".", "", placeholder.ErrDotSegment},
		{"DotsWithLiteral", "https://a.example/a/.{{v}}?x", ".", "", placeholder.ErrDotSegment},
		{"DotsInLongerSegment", "https://a.example/a/{{v}}.json", "..", "https://a.example/a/...json", nil},
		{"TemplateDots", "https://a.example/a/../{{v}}", "b", "https://a.example/a/../b", nil},
		{"DotsInQuery", "https://a.example/a?x={{v}}", "..", "https://a.example/a?x=..", nil},
		{"Unknown", "https://a.example/{{nope}}/{{v}}", "b", "https://a.example/{{nope}}/b", nil},
		{"Empty", "https://a.example/a/{{v}}/b", "", "https://a.example/a//b", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := placeholder.URL(c.tmpl, values(c.value))
			if !errors.Is(err, c.err) || out != c.want {
				t.Fatalf("got %q, %v; want %q, %v", out, err, c.want, c.err)
			}
		})
	}
}

// TestJSONInjection: a value inside a string literal stays that string's
// content; a value standing alone becomes a JSON string. The body has the
// template's members, each value intact.
func TestJSONInjection(t *testing.T) {
	const tmpl = `{"note": "Note: {{v}}", "bare": {{v}}, "list": [{{v}}, "{{id}}"], "{{v}}": 1}`
	for _, v := range []string{
		`plain`, `","role":"admin`, `a"}, "role": "admin`, `1, "role": "admin"`, `\`, `\"`, `</script>&`,
		"line\nbreak\t\x00", `{{v}}`, "\u2028", `"`,
	} {
		t.Run(v, func(t *testing.T) {
			out, err := placeholder.JSON(tmpl, values(v))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if len(got) != 4 || got["note"] != "Note: "+v || got["bare"] != v || got[v] != 1.0 {
				t.Fatalf("members %v", got)
			}
			if l, _ := got["list"].([]any); len(l) != 2 || l[0] != v || l[1] != "42" {
				t.Fatalf("list %v", got["list"])
			}
		})
	}
}

func TestJSONTemplates(t *testing.T) {
	cases := []struct {
		name, tmpl, want string
		err              error
	}{
		{"EscapedQuoteBefore", `{"a": "say \"{{v}}\""}`, `{"a": "say \"x\"y\""}`, nil},
		{"EscapedBackslashBefore", `{"a": "\\{{v}}"}`, `{"a": "\\x\"y"}`, nil},
		{"BackslashBefore", `{"a": "\{{v}}"}`, "", placeholder.ErrBrokenEscape},
		{"AfterString", `{"a": "b", "c": {{v}}}`, `{"a": "b", "c": "x\"y"}`, nil},
		{"Unknown", `{"a": "{{nope}}", "b": {{v}}}`, `{"a": "{{nope}}", "b": "x\"y"}`, nil},
		{"TopLevel", `{{v}}`, `"x\"y"`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := placeholder.JSON(c.tmpl, values(`x"y`))
			if !errors.Is(err, c.err) || out != c.want {
				t.Fatalf("got %q, %v; want %q, %v", out, err, c.want, c.err)
			}
		})
	}
}

// TestHeaderInjection: a value with a line break (or another control
// character) is refused, so it cannot add a header.
func TestHeaderInjection(t *testing.T) {
	cases := []struct {
		name, value string
		err         error
	}{
		{"Plain", "Bearer abc", nil},
		{"Tab", "a\tb", nil},
		{"Unicode", "ñandú", nil},
		{"CRLF", "a\r\nX-Admin: 1", placeholder.ErrControlCharacter},
		{"LF", "a\nX-Admin: 1", placeholder.ErrControlCharacter},
		{"CR", "a\rb", placeholder.ErrControlCharacter},
		{"NUL", "a\x00b", placeholder.ErrControlCharacter},
		{"DEL", "a\x7fb", placeholder.ErrControlCharacter},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := placeholder.Header("x-{{v}}", values(c.value))
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if err == nil && out != "x-"+c.value {
				t.Fatalf("header %q", out)
			}
		})
	}
}

// TestBody: the content type chooses the encoding.
func TestBody(t *testing.T) {
	const v = `a&b="c"`
	cases := []struct{ contentType, tmpl, want string }{
		{"", `{"a": "{{v}}"}`, `{"a": "a&b=\"c\""}`},
		{"application/json; charset=utf-8", `{"a": {{v}}}`, `{"a": "a&b=\"c\""}`},
		{"application/vnd.api+json", `{"a": {{v}}}`, `{"a": "a&b=\"c\""}`},
		{"not a type;;", `{"a": {{v}}}`, `{"a": "a&b=\"c\""}`},
		{"", `x={{v}}&y=1`, `x=a%26b%3D%22c%22&y=1`},
		{"", `Hi {{v}}`, `Hi a%26b%3D%22c%22`},
		{"application/x-www-form-urlencoded", `x={{v}}&y=1`, `x=a%26b%3D%22c%22&y=1`},
		{"text/plain", `Hi {{v}}`, `Hi a&b="c"`},
	}
	for _, c := range cases {
		t.Run(c.contentType+" "+c.tmpl, func(t *testing.T) {
			out, err := placeholder.Body(c.tmpl, c.contentType, values(v))
			if err != nil || out != c.want {
				t.Fatalf("got %q, %v; want %q", out, err, c.want)
			}
		})
	}
}

func TestTextAndSample(t *testing.T) {
	if got := placeholder.Text("Hi {{ v }}, {{nope}}", values("Ana")); got != "Hi Ana, {{nope}}" {
		t.Fatalf("text %q", got)
	}
	if got, _ := placeholder.URL("https://{{a}}.example/{{b.c}}?q={{d}}", placeholder.Sample); got != "https://x.example/x?q=x" {
		t.Fatalf("sample %q", got)
	}
}

// FuzzValue: whatever a value holds, a URL keeps its host, its path
// segments and its query parameters (or is refused as a dot segment), and
// a JSON body keeps its members, each value intact.
//
// go test -run '^$' -fuzz FuzzValue ./internal/placeholder/
func FuzzValue(f *testing.F) {
	for _, s := range []string{"", "..", "../../admin/delete", "a&tenant=other#x", `","role":"admin`, "a\r\nb", `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out, err := placeholder.URL("https://api.example.com/o/{{v}}/i?q={{v}}", values(v))
		if errors.Is(err, placeholder.ErrDotSegment) {
			if v != "." && v != ".." {
				t.Fatalf("%q refused as a dot segment", v)
			}
		} else {
			u, perr := url.Parse(out)
			if err != nil || perr != nil {
				t.Fatalf("%q: %v %v", out, err, perr)
			}
			segs := strings.Split(u.EscapedPath(), "/")
			if u.Host != "api.example.com" || len(segs) != 4 || len(u.Query()) != 1 || u.Query().Get("q") != v {
				t.Fatalf("%q -> %q", v, out)
			}
		}
		body, err := placeholder.JSON(`{"a": "{{v}}", "b": {{v}}}`, values(v))
		var got map[string]any
		if err != nil || json.Unmarshal([]byte(body), &got) != nil || len(got) != 2 {
			t.Fatalf("%q -> %q (%v)", v, body, err)
		}
	})
}
