package templates_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"switchboard/templates"
)

func TestParseSampleValues(t *testing.T) {
	for name, tc := range map[string]struct {
		raw  string
		want []string
		ok   bool
	}{
		"Null":          {`null`, []string{}, true},
		"Strings":       {`["a","b"]`, []string{"a", "b"}, true},
		"Objects":       {`[{"component":"header","index":1,"value":"H"},{"component":"body","index":2,"value":"B2"},{"component":"body","index":1,"value":"B1"}]`, []string{"B1", "B2", "H"}, true},
		"NumberValue":   {`[{"component":"body","index":1,"value":42}]`, []string{"42"}, true},
		"ErrObject":     {`{"a":1}`, nil, false},
		"ErrMixed":      {`["a",{"component":"body","index":1,"value":"x"}]`, nil, false},
		"ErrComponent":  {`[{"component":"footer","index":1,"value":"x"}]`, nil, false},
		"ErrTwoHeaders": {`[{"component":"header","value":"x"},{"component":"header","value":"y"}]`, nil, false},
		"ErrNumber":     {`[1]`, nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := templates.ParseSampleValues(json.RawMessage(tc.raw))
			if (err == nil) != tc.ok || (tc.ok && !reflect.DeepEqual(got, tc.want)) {
				t.Fatalf("ParseSampleValues(%s) = %q, %v", tc.raw, got, err)
			}
		})
	}
}

func FuzzParseSampleValues(f *testing.F) {
	for _, seed := range []string{`null`, `[]`, `["a"]`, `[{"component":"body","index":1,"value":"x"}]`, `[{"index":1e99}]`, `[{"value":[1]}]`, `"x"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := templates.ParseSampleValues(raw)
		if err != nil {
			return
		}
		if len(got) > templates.MaxBodyVariables+1 {
			t.Fatalf("%d samples accepted", len(got))
		}
		for _, s := range got {
			if json.Valid(raw) && !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 sample %q from valid JSON", s)
			}
		}
	})
}
