package templates_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/provider/providertest"
	"switchboard/templates"
)

func minutes(n int) *int { return &n }

// TestDefinition submits templates built by Definition to the fake Graph
// API and compares the body it received with the Cloud API's documented
// message_templates create requests (testdata/create_*.json).
func TestDefinition(t *testing.T) {
	for name, tpl := range map[string]*ent.Template{
		"text_header_body_footer_buttons": {
			ChatAccount: "Main", Name: "order_shipped", Language: "en_US", Category: template.CategoryUTILITY,
			HeaderType: template.HeaderTypeTEXT, HeaderContent: "Order from {{1}}",
			BodyContent: "Hi {{1}}, your order {{2}} has shipped.", FooterContent: "Reply STOP to opt out",
			SampleValues: []string{"Ann", "42", "ACME"},
			Buttons: []map[string]any{
				{"type": "URL", "text": "Track", "url": "https://shop.example/track/{{1}}", "example": "42"},
				{"type": "PHONE_NUMBER", "text": "Call us", "phone_number": "+15550001234"},
				{"type": "QUICK_REPLY", "text": "Thanks"},
			},
		},
		"url_button_without_example": {
			ChatAccount: "Main", Name: "order_tracking", Language: "en_US", Category: template.CategoryUTILITY,
			HeaderType: template.HeaderTypeNONE, BodyContent: "Your order is on its way.",
			Buttons: []map[string]any{{"type": "URL", "text": "Track", "url": "https://shop.example/track/{{1}}"}},
		},
		"image_header": {
			ChatAccount: "Main", Name: "summer_sale", Language: "en", Category: template.CategoryMARKETING,
			HeaderType: template.HeaderTypeIMAGE, HeaderContent: "4::aW1hZ2UvanBlZw==:ARZfakeHandle",
			BodyContent: "Our sale starts {{1}}!", SampleValues: []string{"Friday"},
			Buttons: []map[string]any{{"type": "COPY_CODE", "example": "SUMMER25"}},
		},
		"document_header_named": {
			ChatAccount: "Main", Name: "invoice_ready", Language: "en_US", Category: template.CategoryUTILITY,
			HeaderType: template.HeaderTypeDOCUMENT, HeaderContent: "4::YXBwbGljYXRpb24vcGRm:ARZdoc",
			BodyContent: "Dear {{first_name}}, invoice {{invoice_id}} is attached.", SampleValues: []string{"Ann", "INV-7"},
		},
		"authentication": {
			ChatAccount: "Main", Name: "login_code", Language: "en", Category: template.CategoryAUTHENTICATION,
			HeaderType: template.HeaderTypeNONE, AddSecurityRecommendation: true, CodeExpirationMinutes: minutes(10),
			Buttons: []map[string]any{{"type": "OTP", "otp_type": "COPY_CODE", "text": "Copy code"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			def, err := templates.Definition(tpl)
			if err != nil {
				t.Fatalf("Definition: %v", err)
			}
			fake := providertest.New(t)
			if _, err := fake.Client().CreateTemplate(context.Background(), fake.Account(), def); err != nil {
				t.Fatalf("create: %v", err)
			}
			reqs := fake.Find("POST", "/"+providertest.BusinessID+"/message_templates")
			if len(reqs) != 1 {
				t.Fatalf("fake received %d creates", len(reqs))
			}
			got := reqs[0].JSON(t)
			raw, err := os.ReadFile(filepath.Join("testdata", "create_"+name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				b, _ := json.MarshalIndent(got, "", "  ")
				t.Fatalf("create request:\n%s\nwant:\n%s", b, raw)
			}
		})
	}
}

func TestDefinitionRefusesWhatThePlatformWould(t *testing.T) {
	for name, tpl := range map[string]*ent.Template{
		"MediaHeaderWithoutHandle": {ChatAccount: "Main", Name: "a", Language: "en", Category: template.CategoryMARKETING,
			HeaderType: template.HeaderTypeVIDEO, BodyContent: "Watch"},
		"SamplesMissing": {ChatAccount: "Main", Name: "a", Language: "en", Category: template.CategoryMARKETING,
			HeaderType: template.HeaderTypeNONE, BodyContent: "Hi {{1}} there"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := templates.Definition(tpl); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
