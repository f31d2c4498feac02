package messaging_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/provider/providertest"
)

// TestTemplateComponents sends templates built by TemplateComponents to
// the fake Graph API and compares the template object it received with
// the Cloud API's documented request shapes (testdata/send_*.json).
func TestTemplateComponents(t *testing.T) {
	for name, tc := range map[string]struct {
		tpl    *ent.Template
		params messaging.TemplateParams
		media  *provider.Media
	}{
		"positional_text_header_url_button": {
			tpl: &ent.Template{Name: "order_shipped", Language: "en_US", HeaderType: template.HeaderTypeTEXT,
				HeaderContent: "Order from {{1}}", BodyContent: "Hi {{1}}, order {{2}} shipped.",
				Buttons: []map[string]any{{"type": "QUICK_REPLY", "text": "Thanks"}, {"type": "URL", "text": "Track", "url": "https://shop.example/t/{{1}}"}}},
			params: messaging.TemplateParams{Body: map[string]string{"2": "42", "1": "Ann"}, Header: map[string]string{"1": "ACME"}, Buttons: map[string]string{"1": "42"}},
		},
		"named_body": {
			tpl:    &ent.Template{Name: "named_vars", Language: "en", HeaderType: template.HeaderTypeNONE, BodyContent: "Dear {{first_name}}, code {{code}}."},
			params: messaging.TemplateParams{Body: map[string]string{"first_name": "Bo", "code": "X1"}},
		},
		"image_header_by_id": {
			tpl:    &ent.Template{Name: "promo", Language: "en_US", HeaderType: template.HeaderTypeIMAGE, BodyContent: "Sale {{1}}"},
			params: messaging.TemplateParams{Body: map[string]string{"1": "today"}},
			media:  &provider.Media{Kind: provider.MediaImage, ID: "1479537139650973"},
		},
		"video_header_by_link": {
			tpl:   &ent.Template{Name: "tour", Language: "en_US", HeaderType: template.HeaderTypeVIDEO, BodyContent: "Take the tour"},
			media: &provider.Media{Kind: provider.MediaVideo, Link: "https://cdn.example.com/tour.mp4"},
		},
		"document_header_with_filename": {
			tpl:    &ent.Template{Name: "invoice", Language: "en_US", HeaderType: template.HeaderTypeDOCUMENT, BodyContent: "Invoice {{1}}"},
			params: messaging.TemplateParams{Body: map[string]string{"1": "INV-7"}},
			media:  &provider.Media{Kind: provider.MediaDocument, ID: "998877", Filename: "invoice-7.pdf"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			bound, err := messaging.BindTemplateParams(tc.tpl, tc.params, tc.media != nil)
			if err != nil {
				t.Fatalf("bind: %v", err)
			}
			tpl, err := messaging.TemplateComponents(tc.tpl, bound, tc.media)
			if err != nil {
				t.Fatalf("components: %v", err)
			}
			fake := providertest.New(t)
			if _, err := fake.Client().SendMessage(context.Background(), fake.Account(), provider.OutgoingMessage{To: "15550001111", Template: tpl}); err != nil {
				t.Fatalf("send: %v", err)
			}
			sent := fake.Find("POST", "/"+providertest.PhoneID+"/messages")
			if len(sent) != 1 {
				t.Fatalf("fake received %d sends", len(sent))
			}
			got := sent[0].JSON(t).(map[string]any)["template"]
			raw, err := os.ReadFile(filepath.Join("testdata", "send_"+name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				t.Fatalf("template sent:\n%s\nwant:\n%s", g, raw)
			}
		})
	}
}

func TestTemplateComponentsRefusesMismatchedMedia(t *testing.T) {
	img := &ent.Template{Name: "promo", Language: "en_US", HeaderType: template.HeaderTypeIMAGE}
	if _, err := messaging.TemplateComponents(img, messaging.TemplateParams{}, nil); err == nil {
		t.Error("an IMAGE header without media was accepted")
	}
	if _, err := messaging.TemplateComponents(img, messaging.TemplateParams{}, &provider.Media{Kind: provider.MediaVideo, ID: "1"}); err == nil {
		t.Error("a video for an IMAGE header was accepted")
	}
	none := &ent.Template{Name: "plain", Language: "en_US", HeaderType: template.HeaderTypeNONE}
	if _, err := messaging.TemplateComponents(none, messaging.TemplateParams{}, &provider.Media{Kind: provider.MediaImage, ID: "1"}); err == nil {
		t.Error("media for a template without header was accepted")
	}
}
