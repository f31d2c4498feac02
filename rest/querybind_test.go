package rest

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/messaging"
	"switchboard/notes"
	"switchboard/transfers"
)

type sampleQuery struct {
	Search string     `query:"search" maxLength:"5"`
	ID     *uuid.UUID `query:"id" format:"uuid"`
	Kind   string     `query:"kind" enum:"a,b"`
	Limit  int        `query:"limit" minimum:"1" maximum:"9" default:"3"`
	Only   bool       `query:"only"`
	Token  string     `query:"token" required:"true"`
	Free   string
}

func TestDecodeQuery(t *testing.T) {
	const id = "0190f1d2-0000-7000-8000-000000000001"
	parsed := uuid.MustParse(id)
	for name, tc := range map[string]struct {
		query   string
		want    sampleQuery
		wantErr string
	}{
		"Defaults":         {query: "token=t", want: sampleQuery{Token: "t", Limit: 3}},
		"EmptyIsAbsent":    {query: "token=t&limit=&kind=", want: sampleQuery{Token: "t", Limit: 3}},
		"All":              {query: "token=t&search=héllo&id=" + id + "&kind=b&limit=9&only=true", want: sampleQuery{Token: "t", Search: "héllo", ID: &parsed, Kind: "b", Limit: 9, Only: true}},
		"FirstValueWins":   {query: "token=t&limit=2&limit=5", want: sampleQuery{Token: "t", Limit: 2}},
		"UntaggedIgnored":  {query: "token=t&Free=x", want: sampleQuery{Token: "t", Limit: 3}},
		"Required":         {query: "limit=2", wantErr: "token is required"},
		"TooLong":          {query: "token=t&search=abcdef", wantErr: "search must be at most 5 characters"},
		"BadUTF8":          {query: "token=t&search=%ff", wantErr: "search must be valid UTF-8"},
		"BadUUID":          {query: "token=t&id=nope", wantErr: "id must be a valid UUID"},
		"NotInEnum":        {query: "token=t&kind=c", wantErr: "kind must be one of a, b"},
		"NotAnInteger":     {query: "token=t&limit=x", wantErr: "limit must be an integer"},
		"HugeInteger":      {query: "token=t&limit=99999999999999999999", wantErr: "limit must be an integer"},
		"BelowMinimum":     {query: "token=t&limit=0", wantErr: "limit must be at least 1"},
		"AboveMaximum":     {query: "token=t&limit=10", wantErr: "limit must be at most 9"},
		"NotABoolean":      {query: "token=t&only=maybe", wantErr: "only must be true or false"},
		"BooleanSpellings": {query: "token=t&only=1", want: sampleQuery{Token: "t", Limit: 3, Only: true}},
	} {
		t.Run(name, func(t *testing.T) {
			values, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var got sampleQuery
			err = decodeQuery(values, reflect.ValueOf(&got).Elem())
			if tc.wantErr != "" {
				if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want invalid %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// The defaults and bounds the document publishes are the ones the
// domain packages apply when another transport (GraphQL) leaves them out.
func TestQueryTagsMatchTheDomain(t *testing.T) {
	for _, tc := range []struct {
		typ       any
		field     string
		tag, want string
	}{
		{messagesQuery{}, "Limit", "default", strconv.Itoa(messaging.DefaultPageSize)},
		{notesQuery{}, "Limit", "default", strconv.Itoa(notes.DefaultPageSize)},
		{transfersQuery{}, "Limit", "default", strconv.Itoa(transfers.DefaultPageSize)},
		{transfersQuery{}, "Offset", "maximum", strconv.Itoa(transfers.MaxOffset)},
	} {
		f, ok := reflect.TypeOf(tc.typ).FieldByName(tc.field)
		if !ok {
			t.Fatalf("%T has no field %s", tc.typ, tc.field)
		}
		if got := f.Tag.Get(tc.tag); got != tc.want {
			t.Errorf("%T.%s: %s %q, the domain's is %s", tc.typ, tc.field, tc.tag, got, tc.want)
		}
	}
}

// Handlers read query parameters only through queryOf and pageOf, whose
// types are the route table's Query: a parameter read past them would be
// missing from the OpenAPI document and unchecked. bind.go reads page and
// limit for pageOf; /ws is not an /api route.
func TestHandlersReadTheDeclaredQuery(t *testing.T) {
	direct := regexp.MustCompile(`\bc\.(Query|GetQuery|DefaultQuery|QueryArray|QueryMap|ShouldBindQuery|BindQuery)\(|URL\.Query\(\)`)
	allowed := map[string]bool{"bind.go": true, "querybind.go": true, "ws.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || allowed[name] {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if direct.MatchString(line) {
				t.Errorf("%s:%d reads the query directly: %s", name, i+1, strings.TrimSpace(line))
			}
		}
	}
}
