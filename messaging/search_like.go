package messaging

import (
	"html"
	"sort"
	"strings"
	"unicode"

	"entgo.io/ent/dialect/sql"

	"switchboard/database"
)

// The embedded SQLite mode's message search: the web-search syntax
// parsed here and matched with LIKE over a plain scan of the
// organization's messages (no index), and a snippet highlighted in Go.

// searchTerm is a word or a quoted phrase, matched as a substring.
type searchTerm struct {
	Text    string
	Negated bool
}

// parseSearch reads web-search syntax as websearch_to_tsquery does: the
// result is a conjunction of alternatives (each inner list holds terms
// joined by OR). Words are split on spaces and stripped of punctuation
// at their ends; "a phrase" keeps its inner text (an unclosed quote runs
// to the end); -term excludes; OR joins its neighbours. Terms with no
// letter or digit are dropped, so the result may be empty.
func parseSearch(q string) [][]searchTerm {
	var out [][]searchTerm
	joinNext := false
	rs := []rune(q)
	for i := 0; i < len(rs); {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		negated := false
		if rs[i] == '-' && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
			negated = true
			i++
		}
		var text string
		quoted := rs[i] == '"'
		if quoted {
			end := i + 1
			for end < len(rs) && rs[end] != '"' {
				end++
			}
			text = strings.TrimSpace(string(rs[i+1 : end]))
			i = end + 1
		} else {
			end := i
			for end < len(rs) && !unicode.IsSpace(rs[end]) && rs[end] != '"' {
				end++
			}
			text = strings.TrimFunc(string(rs[i:end]), notWordRune)
			i = end
		}
		if !quoted && !negated && strings.EqualFold(text, "or") {
			joinNext = len(out) > 0
			continue
		}
		if strings.IndexFunc(text, isWordRune) < 0 {
			continue
		}
		t := searchTerm{Text: text, Negated: negated}
		if joinNext {
			out[len(out)-1] = append(out[len(out)-1], t)
		} else {
			out = append(out, []searchTerm{t})
		}
		joinNext = false
	}
	return out
}

func isWordRune(r rune) bool  { return unicode.IsLetter(r) || unicode.IsDigit(r) }
func notWordRune(r rune) bool { return !isWordRune(r) }

// matchesLike is the conjunction of alternatives as LIKE predicates over
// the message's text, with the wildcards of each term escaped.
func matchesLike(terms [][]searchTerm) func(*sql.Selector) {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			for i, alternatives := range terms {
				if i > 0 {
					b.WriteString(" AND ")
				}
				b.WriteString("(")
				for j, t := range alternatives {
					if j > 0 {
						b.WriteString(" OR ")
					}
					b.WriteString("COALESCE(json_extract(content, '$.body'), '')")
					if t.Negated {
						b.WriteString(" NOT")
					}
					b.WriteString(" LIKE ").Arg("%" + database.EscapeLike(t.Text) + "%").WriteString(` ESCAPE '\'`)
				}
				b.WriteString(")")
			}
		}))
	}
}

// positiveTexts lists the terms a match shows (not the excluded ones).
func positiveTexts(terms [][]searchTerm) []string {
	var out []string
	for _, alternatives := range terms {
		for _, t := range alternatives {
			if !t.Negated {
				out = append(out, t.Text)
			}
		}
	}
	return out
}

// snippetRunes bounds a highlighted snippet; a longer text is cut around
// its first match, with an ellipsis where it was cut.
const snippetRunes = 160

// highlight returns body as a snippet: HTML-escaped, each
// case-insensitive occurrence of a term between SnippetMarkOpen and
// SnippetMarkClose.
func highlight(body string, terms []string) string {
	// As on PostgreSQL, where they mark the matches.
	text := []rune(strings.NewReplacer(rawMarkOpen, "", rawMarkClose, "").Replace(body))
	lower := lowerRunes(text)
	needles := make([][]rune, 0, len(terms))
	for _, t := range terms {
		needles = append(needles, lowerRunes([]rune(t)))
	}
	// Longest first, so that a phrase wins over a word inside it.
	sort.Slice(needles, func(i, j int) bool { return len(needles[i]) > len(needles[j]) })
	marks := make([]int, len(text)) // length of a match starting here
	first := -1
	for i := 0; i < len(text); {
		n := matchAt(lower, i, needles)
		if n == 0 {
			i++
			continue
		}
		if first < 0 {
			first = i
		}
		marks[i] = n
		i += n
	}
	from, to := snippetWindow(len(text), first)
	var b strings.Builder
	if from > 0 {
		b.WriteString("… ")
	}
	for i := from; i < to; {
		if n := marks[i]; n > 0 {
			end := min(i+n, to)
			b.WriteString(SnippetMarkOpen + html.EscapeString(string(text[i:end])) + SnippetMarkClose)
			i = end
			continue
		}
		b.WriteString(html.EscapeString(string(text[i])))
		i++
	}
	if to < len(text) {
		b.WriteString(" …")
	}
	return b.String()
}

// snippetWindow picks at most snippetRunes of n runes, starting a little
// before the first match (at 0 when there is none).
func snippetWindow(n, first int) (from, to int) {
	if n <= snippetRunes {
		return 0, n
	}
	from = max(0, first-snippetRunes/4)
	to = min(n, from+snippetRunes)
	return max(0, to-snippetRunes), to
}

func matchAt(text []rune, i int, needles [][]rune) int {
	for _, nd := range needles {
		if len(nd) > 0 && i+len(nd) <= len(text) && equalRunes(text[i:i+len(nd)], nd) {
			return len(nd)
		}
	}
	return 0
}

func lowerRunes(rs []rune) []rune {
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = unicode.ToLower(r)
	}
	return out
}

func equalRunes(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
