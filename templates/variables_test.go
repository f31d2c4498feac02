package templates_test

import (
	"reflect"
	"testing"

	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/templates"
)

func TestVariables(t *testing.T) {
	tpl := &ent.Template{
		HeaderType: template.HeaderTypeTEXT, HeaderContent: "Hello {{1}}",
		BodyContent: "Hi {{1}}, order {{2}}; again {{1}}.",
		Buttons: []map[string]any{
			{"type": "QUICK_REPLY", "text": "Stop"},
			{"type": "URL", "text": "Static", "url": "https://a.example/"},
			{"type": "URL", "text": "Track", "url": "https://a.example/{{1}}"},
		},
	}
	want := templates.Vars{Body: []string{"1", "2"}, Header: "1", URLButtons: []int{2}}
	if got := templates.Variables(tpl); !reflect.DeepEqual(got, want) {
		t.Fatalf("Variables = %+v, want %+v", got, want)
	}
	named := &ent.Template{HeaderType: template.HeaderTypeIMAGE, HeaderContent: "4::aW1hZ2U=", BodyContent: "Dear {{ first_name }}"}
	want = templates.Vars{Body: []string{"first_name"}}
	if got := templates.Variables(named); !reflect.DeepEqual(got, want) {
		t.Fatalf("Variables = %+v, want %+v", got, want)
	}
	if got := templates.Render("Dear {{first_name}} {{x}}", map[string]string{"first_name": "Bo"}); got != "Dear Bo {{x}}" {
		t.Fatalf("Render = %q", got)
	}
}
