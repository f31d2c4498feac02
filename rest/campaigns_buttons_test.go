package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"switchboard/ent"
	"switchboard/ent/campaign"
)

// TestCampaignButtonParams: recipients of a template with a dynamic URL
// button carry button_params (button index to value, as a single
// template send does); the import refuses rows without it, with unknown
// buttons or bad indexes; each send carries the button component in the
// Cloud API's shape.
func TestCampaignButtonParams(t *testing.T) {
	e := newCampaignEnv(t)
	tpl := e.newTemplate(t, "track_order", func(c *ent.TemplateCreate) {
		c.SetBodyContent("Hi {{1}}, your order has shipped.").
			SetButtons([]map[string]any{{"type": "URL", "text": "Track", "url": "https://shop.example/track/{{1}}"},
				{"type": "QUICK_REPLY", "text": "Thanks"}})
	})
	id := e.newCampaign(t, "Buttons", tpl)
	row := func(phone string, buttons any) map[string]any {
		r := map[string]any{"phone_number": phone, "template_params": map[string]any{"1": "Ann"}}
		if buttons != nil {
			r["button_params"] = buttons
		}
		return r
	}
	res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/recipients/import", map[string]any{"recipients": []any{
		row("+15550009001", map[string]any{"0": "A-1"}),
		row("+15550009002", map[string]any{"0": 77}),
		row("+15550009003", nil),                                  // missing
		row("+15550009004", map[string]any{"0": "x", "1": "y"}),   // button 1 is a quick reply
		row("+15550009005", map[string]any{"first": "x"}),         // not an index
		row("+15550009006", map[string]any{"0": "   "}),           // empty
		row("+15550009007", map[string]any{"0": []any{"nested"}}), // not text
	}}).ExpectStatus(t, http.StatusOK)
	if res.Number("data.imported") != 2 || res.Number("data.invalid") != 5 {
		t.Fatalf("import: %s", res.Raw)
	}
	for i, want := range []string{"needs a value for button 0", "button 1 of template", "button indexes", "needs a value for button 0", "must be a string or a number"} {
		if got := res.String(fmt.Sprintf("data.errors.%d.message", i)); !strings.Contains(got, want) {
			t.Errorf("error %d = %q, want %q", i, got, want)
		}
	}
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	if c := e.waitCampaign(t, id, campaign.StatusCompleted); counters(c) != [4]int{2, 0, 0, 0} {
		t.Fatalf("counters %v", counters(c))
	}
	for phone, value := range map[string]string{"15550009001": "A-1", "15550009002": "77"} {
		var r *ent.CampaignRecipient
		for _, x := range e.recipients(t, id) {
			if x.PhoneNumber == phone {
				r = x
			}
		}
		expectBody(t, e.sentTo(t, phone), fmt.Sprintf(`{"messaging_product":"whatsapp","recipient_type":"individual",
			"to":%q,"type":"template","biz_opaque_callback_data":"cmp:%s:%s:1","template":{"name":"track_order",
			"language":{"code":"en_US"},"components":[{"type":"body","parameters":[{"type":"text","text":"Ann"}]},
			{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":%q}]}]}}`,
			phone, id, r.ID, value))
		m, err := e.Client().Message.Get(e.ctx, *r.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		if bp, _ := m.Content["button_params"].(map[string]any); bp["0"] != value {
			t.Errorf("stored message content %v", m.Content)
		}
	}
}
