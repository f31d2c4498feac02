package contacts

import "testing"

// TestHasTrigram: a search's count reads the trigram indexes only for a
// term pg_trgm can look up, three letters or digits in a row.
func TestHasTrigram(t *testing.T) {
	for _, tc := range []struct {
		term string
		want bool
	}{
		{"", false},
		{"ab", false},
		{"a b c", false},
		{"ab-cd", false},
		{"abc", true},
		{"Nadia", true},
		{"+1 (415)", true},
		{"12 34", false},
		{"Zoë", true},
		{"李小龍", true},
	} {
		if got := hasTrigram(tc.term); got != tc.want {
			t.Errorf("hasTrigram(%q) = %v, want %v", tc.term, got, tc.want)
		}
	}
}
