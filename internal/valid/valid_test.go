package valid_test

import (
	"testing"

	"switchboard/apperr"
	"switchboard/internal/valid"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
		required            bool
	}{
		{name: "OK", in: "  hello ", want: "hello"},
		{name: "OKEmptyOptional", in: "   ", want: ""},
		{name: "OKAtBound", in: "abcde", want: "abcde"},
		{name: "OKRunesNotBytes", in: "ééééé", want: "ééééé"},
		{name: "ErrRequired", in: " ", required: true, err: "f is required"},
		{name: "ErrTooLong", in: "abcdef", err: "f must be at most 5 characters"},
		{name: "ErrNUL", in: "a\x00b", err: "f must not contain NUL characters"},
		{name: "ErrUTF8", in: "a\xffb", err: "f must be valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := valid.Text
			if tc.required {
				check = valid.RequiredText
			}
			got, err := check("f", tc.in, 5)
			if tc.err != "" {
				if apperr.CodeOf(err) != apperr.Invalid || err.(*apperr.Error).Message != tc.err {
					t.Fatalf("error %v, want invalid %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCheckKeepsSpaces(t *testing.T) {
	if err := valid.Check("body", "  two spaces  ", 0); err != nil {
		t.Fatal(err)
	}
	if err := valid.Check("body", "abc", 2); err == nil || err.(*apperr.Error).Message != "body must be at most 2 characters" {
		t.Fatalf("over the bound: %v", err)
	}
}
