package messaging_test

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/messaging"
)

// TestParseSearch reads web-search syntax as websearch_to_tsquery does,
// for the embedded mode's scan.
func TestParseSearch(t *testing.T) {
	type term = struct {
		Text    string
		Negated bool
	}
	for _, tc := range []struct {
		name, q string
		want    [][]term
	}{
		{"Words", "hello  world", [][]term{{{"hello", false}}, {{"world", false}}}},
		{"Phrase", `"hello world" again`, [][]term{{{"hello world", false}}, {{"again", false}}}},
		{"Unclosed", `"order #12`, [][]term{{{"order #12", false}}}},
		{"Or", "a or b OR c d", [][]term{{{"a", false}, {"b", false}, {"c", false}}, {{"d", false}}}},
		{"LeadingOr", "or a", [][]term{{{"a", false}}}},
		{"Exclude", `hello -world -"bad news"`, [][]term{{{"hello", false}}, {{"world", true}}, {{"bad news", true}}}},
		{"Punctuation", "hello, world!", [][]term{{{"hello", false}}, {{"world", false}}}},
		{"Wildcards", "50% a_b", [][]term{{{"50", false}}, {{"a_b", false}}}},
		{"NoLetters", `!!! - "" % _`, nil},
		{"NonLatin", "мир 東京", [][]term{{{"мир", false}}, {{"東京", false}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := messaging.ParseSearch(tc.q)
			var plain [][]term
			for _, alts := range got {
				var row []term
				for _, tm := range alts {
					row = append(row, term{tm.Text, tm.Negated})
				}
				plain = append(plain, row)
			}
			if !reflect.DeepEqual(plain, tc.want) {
				t.Errorf("%q: %v, want %v", tc.q, plain, tc.want)
			}
		})
	}
}

// TestHighlight marks each occurrence of a term, escapes the rest, and
// cuts a long text around the first match.
func TestHighlight(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		terms      []string
		want       string
	}{
		{"Marks", "Hello world, hello", []string{"hello"}, "<mark>Hello</mark> world, <mark>hello</mark>"},
		{"PhraseFirst", "hello world", []string{"hello", "hello world"}, "<mark>hello world</mark>"},
		{"Escapes", `<b>"hi"</b> & hi`, []string{"hi"}, `&lt;b&gt;&#34;<mark>hi</mark>&#34;&lt;/b&gt; &amp; <mark>hi</mark>`},
		{"NonLatin", "Привет, МИР", []string{"мир"}, "Привет, <mark>МИР</mark>"},
		{"NoMatch", "abc", []string{"x"}, "abc"},
		{"Cut", strings.Repeat("a ", 200) + "needle" + strings.Repeat(" b", 200), []string{"needle"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := messaging.Highlight(tc.body, tc.terms)
			if tc.want == "" {
				if !strings.HasPrefix(got, "… ") || !strings.HasSuffix(got, " …") || !strings.Contains(got, "<mark>needle</mark>") ||
					utf8.RuneCountInString(got) > 200 {
					t.Errorf("cut snippet %q", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("%q", got)
			}
		})
	}
}

// FuzzDecodeSearchCursor: any text is a cursor or an invalid one, never
// a panic, and a cursor read back writes the same.
func FuzzDecodeSearchCursor(f *testing.F) {
	f.Add(messaging.EncodeSearchCursor(time.Date(2026, 11, 29, 3, 0, 0, 123000, time.UTC), uuid.New()))
	f.Add("")
	f.Add("AAAA")
	f.Add("not-a-cursor!")
	f.Fuzz(func(t *testing.T, s string) {
		at, id, err := messaging.DecodeSearchCursor(s)
		if err != nil {
			return
		}
		at2, id2, err := messaging.DecodeSearchCursor(messaging.EncodeSearchCursor(at, id))
		if err != nil || !at2.Equal(at) || id2 != id {
			t.Fatalf("%q: round trip %v %v %v", s, at2, id2, err)
		}
	})
}

// FuzzParseSearch: any query parses without panicking into terms that
// each hold a letter or digit, and a snippet highlighted with them has
// no markup but its own marks.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"hello world", `"a phrase" -not or this`, `"unclosed`, "- -- or OR", "50% _x_ \\", "мир 東京 مرحبا", "<mark>x</mark>"} {
		f.Add(s, "Hello <b>world</b> & a phrase 50% мир")
	}
	f.Fuzz(func(t *testing.T, q, body string) {
		if !utf8.ValidString(q) || !utf8.ValidString(body) {
			return
		}
		terms := messaging.ParseSearch(q)
		for _, alts := range terms {
			for _, tm := range alts {
				if strings.TrimSpace(tm.Text) == "" {
					t.Fatalf("%q: empty term", q)
				}
			}
		}
		snippet := messaging.Highlight(body, messaging.PositiveTexts(terms))
		bare := strings.NewReplacer(messaging.SnippetMarkOpen, "", messaging.SnippetMarkClose, "").Replace(snippet)
		if strings.ContainsAny(bare, "<>") {
			t.Fatalf("markup in %q (query %q)", snippet, q)
		}
	})
}

// TestHourLexemes: a range's lexemes are the organization's hours OR'd,
// as message_hour_key writes them.
func TestHourLexemes(t *testing.T) {
	org := uuid.MustParse("01a22906-bd8f-7678-9f9c-5e75992cc1ff")
	want := "'#01a22906-bd8f-7678-9f9c-5e75992cc1ff:7' | '#01a22906-bd8f-7678-9f9c-5e75992cc1ff:8'"
	if got := messaging.HourLexemes(org, 7, 8); got != want {
		t.Errorf("lexemes %s, want %s", got, want)
	}
}

// TestRangeCapOf: a query with a phrase, whose candidates the text
// index cannot confirm, counts a range of hours as dense at 100 hits;
// any other at 1,000.
func TestRangeCapOf(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"refund", 1000},
		{"parcel sunday", 1000},
		{`"refund"`, 1000},
		{`"change the delivery address"`, 100},
		{`refund OR "next week"`, 100},
		{`parcel -"left at the door"`, 100},
		{`"unclosed phrase`, 100},
	} {
		if got := messaging.RangeCapOf(tc.query); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.query, got, tc.want)
		}
	}
}
