package flows_test

import (
	"encoding/json"
	"strings"
	"testing"

	"switchboard/flows"
	"switchboard/provider"
)

// validFlow is a two-screen Flow JSON: WELCOME navigates to DONE, which
// is terminal.
const validFlow = `{"version":"6.0","screens":[
 {"id":"WELCOME","title":"Welcome","layout":{"type":"SingleColumnLayout","children":[
  {"type":"TextInput","name":"first_name","label":"First name"},
  {"type":"Footer","label":"Next","on-click-action":{"name":"navigate","next":{"type":"screen","name":"DONE"},"payload":{}}}]}},
 {"id":"DONE","title":"Done","terminal":true,"layout":{"type":"SingleColumnLayout","children":[
  {"type":"Form","name":"form","children":[{"type":"OptIn","name":"agree","label":"I agree"}]},
  {"type":"Footer","label":"Send","on-click-action":{"name":"complete","payload":{}}}]}}]}`

func TestParseFlowJSON(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"OK", validFlow, ""},
		{"ErrNotObject", `[1]`, "not a JSON object"},
		{"ErrNoVersion", `{"screens":[]}`, "flow_json.version is required"},
		{"ErrBadVersion", `{"version":"six","screens":[]}`, "major.minor"},
		{"ErrNoScreens", `{"version":"6.0"}`, "flow_json.screens is required"},
		{"ErrEmptyScreens", `{"version":"6.0","screens":[]}`, "at least one screen"},
		{"ErrScreenNotObject", `{"version":"6.0","screens":[1]}`, "screens[0] must be an object"},
		{"ErrNoID", `{"version":"6.0","screens":[{"layout":{}}]}`, "screens[0]: id is required"},
		{"ErrBadID", `{"version":"6.0","screens":[{"id":"A B"}]}`, "letters, digits and underscores"},
		{"ErrReservedID", `{"version":"6.0","screens":[{"id":"SUCCESS"}]}`, "reserved"},
		{"ErrDuplicateID", `{"version":"6.0","screens":[{"id":"A"},{"id":"A"}]}`, `screens[1]: id "A" is already used by screens[0]`},
		{"ErrNoLayout", `{"version":"6.0","screens":[{"id":"A","terminal":true}]}`, "screens[0] (A): layout is required"},
		{"ErrNoLayoutType", `{"version":"6.0","screens":[{"id":"A","layout":{"children":[]}}]}`, "layout: type is required"},
		{"ErrNoChildren", `{"version":"6.0","screens":[{"id":"A","layout":{"type":"SingleColumnLayout"}}]}`, "children is required"},
		{"ErrComponentType", `{"version":"6.0","screens":[{"id":"A","layout":{"type":"S","children":[{"label":"x"}]}}]}`,
			"screens[0] (A).layout.children[0]: type is required"},
		{"ErrNestedType", `{"version":"6.0","screens":[{"id":"A","layout":{"type":"S","children":[{"type":"Form","children":[{}]}]}}]}`,
			"children[0] (Form).children[0]: type is required"},
		{"ErrDuplicateName", `{"version":"6.0","screens":[{"id":"A","layout":{"type":"S","children":[{"type":"TextInput","name":"n"},{"type":"TextArea","name":"n"}]}}]}`,
			`name "n" is already used`},
		{"ErrNoTerminal", `{"version":"6.0","screens":[{"id":"A","layout":{"type":"S","children":[]}}]}`, "no terminal screen"},
		{"ErrTerminalNotBool", `{"version":"6.0","screens":[{"id":"A","terminal":"yes","layout":{"type":"S","children":[]}}]}`, "terminal must be true or false"},
		{"ErrNavigateUnknown", `{"version":"6.0","screens":[{"id":"A","terminal":true,"layout":{"type":"S","children":[
			{"type":"Footer","on-click-action":{"name":"navigate","next":{"type":"screen","name":"B"}}}]}}]}`, `navigates to screen "B", which does not exist`},
		{"ErrRoutingUnknownSource", `{"version":"6.0","routing_model":{"X":[]},"screens":[{"id":"A","terminal":true,"layout":{"type":"S","children":[]}}]}`,
			`routing_model: screen "X" does not exist`},
		{"ErrRoutingUnknownTarget", `{"version":"6.0","routing_model":{"A":["B"]},"screens":[{"id":"A","terminal":true,"layout":{"type":"S","children":[]}}]}`,
			`routing_model["A"][0]: screen "B" does not exist`},
		{"OKRouting", `{"version":"7.0","data_api_version":"3.0","routing_model":{"A":["B"],"B":[]},"screens":[
			{"id":"A","layout":{"type":"S","children":[]}},{"id":"B","terminal":true,"layout":{"type":"S","children":[]}}]}`, ""},
		{"ErrDataAPIVersion", `{"version":"6.0","data_api_version":3,"screens":[{"id":"A","terminal":true,"layout":{"type":"S","children":[]}}]}`, "data_api_version"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := flows.ParseFlowJSON([]byte(tc.doc))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDescribeValidationErrors(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(validFlow), &doc); err != nil {
		t.Fatal(err)
	}
	got := flows.DescribeValidationErrors(doc, []provider.FlowValidationError{
		{Error: "INVALID_PROPERTY_VALUE", ErrorType: "FLOW_JSON_ERROR", Message: "Invalid value found for property 'type'.",
			LineStart: 9, ColumnStart: 21, Pointers: []provider.FlowPointer{{LineStart: 9, ColumnStart: 21, Path: "screens[1].layout.children[0].type"}}},
		{Error: "MISSING_REQUIRED_PROPERTY", Message: "Missing Form component", LineStart: 3, ColumnStart: 5},
	})
	want := "the platform found 2 error(s) in the flow JSON: Invalid value found for property 'type'. at " +
		"screens[1] (DONE).layout.children[0].type (line 9, column 21); Missing Form component (line 3, column 5)"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// FuzzParseFlowJSON: the checker never panics, and a document it accepts
// is accepted again after a round trip through its encoding.
func FuzzParseFlowJSON(f *testing.F) {
	f.Add([]byte(validFlow))
	f.Add([]byte(`{"version":"6.0","screens":[{"id":"A","terminal":true,"layout":{"type":"S","children":[{"type":"If","then":[{"type":"TextBody"}],"else":[]}]}}]}`))
	f.Add([]byte(`{"version":"6.0","routing_model":{"A":["A"]},"screens":[{"id":"A","terminal":true,"layout":{"type":"S","children":[{"type":"Switch","cases":{"x":[{"type":"TextBody"}]}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := flows.ParseFlowJSON(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("accepted document cannot be encoded: %v", err)
		}
		if _, err := flows.ParseFlowJSON(b); err != nil {
			t.Fatalf("accepted document refused after a round trip: %v", err)
		}
	})
}
