package transfers

import (
	"strings"
	"testing"

	"switchboard/apperr"
)

func TestParseQueue(t *testing.T) {
	if q, err := ParseQueue(""); err != nil || !q.All {
		t.Errorf("empty: %+v %v", q, err)
	}
	if q, err := ParseQueue("general"); err != nil || !q.General || q.All {
		t.Errorf("general: %+v %v", q, err)
	}
	id := "01a213ba-db18-71f9-b14a-f007444cb55e"
	if q, err := ParseQueue(id); err != nil || q.TeamID.String() != id || q.All || q.General {
		t.Errorf("uuid: %+v %v", q, err)
	}
	for _, bad := range []string{"General", "sales", "01a213ba"} {
		if _, err := ParseQueue(bad); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseInclude(t *testing.T) {
	for in, want := range map[string]Include{
		"": {true, true, true}, "all": {true, true, true}, "contact": {Contact: true},
		"agent, team": {Agent: true, Team: true}, "contact,all": {true, true, true},
	} {
		if got, err := ParseInclude(in); err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"notes", "contact,", ",", "Contact"} {
		if _, err := ParseInclude(bad); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// FuzzQueryValues: the team_id and include decoders answer a value or an
// invalid error, never anything else.
func FuzzQueryValues(f *testing.F) {
	for _, s := range []string{"", "general", "all", "contact,agent", "01a213ba-db18-71f9-b14a-f007444cb55e", ",,", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseQueue(s); err != nil && apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("ParseQueue(%q): %v", s, err)
		}
		inc, err := ParseInclude(s)
		if err != nil && apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("ParseInclude(%q): %v", s, err)
		}
		if err == nil && strings.TrimSpace(s) != "" && inc == (Include{}) {
			t.Fatalf("ParseInclude(%q) accepted without including anything", s)
		}
	})
}

func TestNormalize(t *testing.T) {
	in := CreateInput{ContactID: [16]byte{1}, Notes: "  hi  ", Source: " "}
	if err := in.normalize(); err != nil || in.Source != "manual" || in.Notes != "hi" {
		t.Fatalf("%+v %v", in, err)
	}
	for name, bad := range map[string]CreateInput{
		"NoContact": {},
		"Source":    {ContactID: [16]byte{1}, Source: "IVR"},
		"Notes":     {ContactID: [16]byte{1}, Notes: strings.Repeat("x", MaxNotesLength+1)},
		"Account":   {ContactID: [16]byte{1}, ChatAccount: strings.Repeat("x", MaxChatAccountLength+1)},
		"NUL":       {ContactID: [16]byte{1}, Notes: "a\x00b"},
	} {
		if err := bad.normalize(); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%s: %v", name, err)
		}
	}
}
