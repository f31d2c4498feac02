package provider_test

import (
	"context"
	"errors"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

const messagesPath = "/v21.0/" + providertest.PhoneID + "/messages"

func TestSendMessage(t *testing.T) {
	tests := []struct {
		name string
		msg  provider.OutgoingMessage
		want string
	}{
		{
			name: "Text",
			msg:  provider.OutgoingMessage{To: "+1 (650) 555-1234", Text: &provider.Text{Body: "Hello"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"+1 (650) 555-1234","type":"text",
				"text":{"preview_url":false,"body":"Hello"}}`,
		},
		{
			name: "TextPreviewReply",
			msg: provider.OutgoingMessage{To: "16505551234", ReplyTo: "wamid.IN1",
				Text: &provider.Text{Body: "See https://example.com/?a=1&b=2", PreviewURL: true}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"text",
				"context":{"message_id":"wamid.IN1"},
				"text":{"preview_url":true,"body":"See https://example.com/?a=1&b=2"}}`,
		},
		{
			name: "Buttons",
			msg: provider.OutgoingMessage{To: "16505551234", Buttons: &provider.ReplyButtons{
				Header: &provider.Header{Text: "Delivery"}, Body: "When should we come?", Footer: "Reply below",
				Buttons: []provider.ReplyButton{{ID: "am", Title: "Morning"}, {ID: "pm", Title: "Afternoon"}, {ID: "no", Title: "Never"}},
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"interactive",
				"interactive":{"type":"button",
					"header":{"type":"text","text":"Delivery"},
					"body":{"text":"When should we come?"},
					"footer":{"text":"Reply below"},
					"action":{"buttons":[
						{"type":"reply","reply":{"id":"am","title":"Morning"}},
						{"type":"reply","reply":{"id":"pm","title":"Afternoon"}},
						{"type":"reply","reply":{"id":"no","title":"Never"}}]}}}`,
		},
		{
			name: "CallPermissionRequest",
			msg: provider.OutgoingMessage{To: "16505551234", CallPermission: &provider.CallPermissionRequest{
				Body: "May we call you about your order?"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"interactive",
				"interactive":{"type":"call_permission_request",
					"body":{"text":"May we call you about your order?"},
					"action":{"name":"call_permission_request"}}}`,
		},
		{
			name: "ButtonsImageHeader",
			msg: provider.OutgoingMessage{To: "16505551234", Buttons: &provider.ReplyButtons{
				Header: &provider.Header{Media: &provider.Media{Kind: provider.MediaImage, ID: "1013859600285441"}},
				Body:   "Like it?", Buttons: []provider.ReplyButton{{ID: "y", Title: "Yes"}},
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"interactive",
				"interactive":{"type":"button",
					"header":{"type":"image","image":{"id":"1013859600285441"}},
					"body":{"text":"Like it?"},
					"action":{"buttons":[{"type":"reply","reply":{"id":"y","title":"Yes"}}]}}}`,
		},
		{
			name: "CTAURL",
			msg: provider.OutgoingMessage{To: "16505551234", CTAURL: &provider.CTAURL{
				Header: &provider.Header{Media: &provider.Media{Kind: provider.MediaDocument, Link: "https://example.com/menu.pdf"}},
				Body:   "Our menu", Footer: "Open daily", DisplayText: "See dates", URL: "https://example.com/book?ref=wa",
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"interactive",
				"interactive":{"type":"cta_url",
					"header":{"type":"document","document":{"link":"https://example.com/menu.pdf"}},
					"body":{"text":"Our menu"},
					"footer":{"text":"Open daily"},
					"action":{"name":"cta_url","parameters":{"display_text":"See dates","url":"https://example.com/book?ref=wa"}}}}`,
		},
		{
			name: "List",
			msg: provider.OutgoingMessage{To: "16505551234", List: &provider.List{
				Header: "Shipping", Body: "Pick a speed", Footer: "Prices in USD", ButtonText: "Options",
				Sections: []provider.ListSection{
					{Title: "Fast", Rows: []provider.ListRow{{ID: "express", Title: "Express", Description: "Next day"}}},
					{Title: "Slow", Rows: []provider.ListRow{{ID: "ground", Title: "Ground"}}},
				},
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"interactive",
				"interactive":{"type":"list",
					"header":{"type":"text","text":"Shipping"},
					"body":{"text":"Pick a speed"},
					"footer":{"text":"Prices in USD"},
					"action":{"button":"Options","sections":[
						{"title":"Fast","rows":[{"id":"express","title":"Express","description":"Next day"}]},
						{"title":"Slow","rows":[{"id":"ground","title":"Ground"}]}]}}}`,
		},
		{
			name: "TemplateTextHeaderBodyURLButton",
			msg: provider.OutgoingMessage{To: "16505551234", Template: &provider.Template{
				Name: "order_shipped", Language: "en_US",
				HeaderText: []provider.TemplateParam{{Text: "#1234"}},
				Body:       []provider.TemplateParam{{Text: "Ana"}, {Text: "Friday"}},
				Buttons:    []provider.TemplateButton{{Index: 0, SubType: provider.ButtonURL, Value: "track/1234"}},
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"template",
				"template":{"name":"order_shipped","language":{"code":"en_US"},"components":[
					{"type":"header","parameters":[{"type":"text","text":"#1234"}]},
					{"type":"body","parameters":[{"type":"text","text":"Ana"},{"type":"text","text":"Friday"}]},
					{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"track/1234"}]}]}}`,
		},
		{
			name: "TemplateDocumentHeader",
			msg: provider.OutgoingMessage{To: "16505551234", Template: &provider.Template{
				Name: "invoice", Language: "pt_BR",
				HeaderMedia: &provider.Media{Kind: provider.MediaDocument, Link: "https://example.com/i.pdf", Filename: "invoice.pdf"},
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"template",
				"template":{"name":"invoice","language":{"code":"pt_BR"},"components":[
					{"type":"header","parameters":[{"type":"document","document":{"link":"https://example.com/i.pdf","filename":"invoice.pdf"}}]}]}}`,
		},
		{
			name: "TemplateVideoHeaderByIDNamedParamsQuickReply",
			msg: provider.OutgoingMessage{To: "16505551234", Template: &provider.Template{
				Name: "promo", Language: "en",
				HeaderMedia: &provider.Media{Kind: provider.MediaVideo, ID: "55501"},
				Body:        []provider.TemplateParam{{Name: "first_name", Text: "Ana"}},
				Buttons: []provider.TemplateButton{
					{Index: 1, SubType: provider.ButtonQuickReply, Value: "STOP"},
				},
			}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"template",
				"template":{"name":"promo","language":{"code":"en"},"components":[
					{"type":"header","parameters":[{"type":"video","video":{"id":"55501"}}]},
					{"type":"body","parameters":[{"type":"text","parameter_name":"first_name","text":"Ana"}]},
					{"type":"button","sub_type":"quick_reply","index":"1","parameters":[{"type":"payload","payload":"STOP"}]}]}}`,
		},
		{
			name: "TemplateNoParams",
			msg:  provider.OutgoingMessage{To: "16505551234", Template: &provider.Template{Name: "hello_world", Language: "en_US"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"template",
				"template":{"name":"hello_world","language":{"code":"en_US"}}}`,
		},
		{
			name: "ImageByIDWithCaption",
			msg:  provider.OutgoingMessage{To: "16505551234", Media: &provider.Media{Kind: provider.MediaImage, ID: "1479537139650973", Caption: "Our store"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"image",
				"image":{"id":"1479537139650973","caption":"Our store"}}`,
		},
		{
			name: "DocumentByLink",
			msg: provider.OutgoingMessage{To: "16505551234", Media: &provider.Media{Kind: provider.MediaDocument,
				Link: "https://example.com/terms.pdf", Caption: "Terms", Filename: "terms.pdf"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"document",
				"document":{"link":"https://example.com/terms.pdf","caption":"Terms","filename":"terms.pdf"}}`,
		},
		{
			name: "VideoReply",
			msg: provider.OutgoingMessage{To: "16505551234", ReplyTo: "wamid.IN2",
				Media: &provider.Media{Kind: provider.MediaVideo, Link: "https://example.com/v.mp4"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"video",
				"context":{"message_id":"wamid.IN2"},"video":{"link":"https://example.com/v.mp4"}}`,
		},
		{
			name: "Audio",
			msg:  provider.OutgoingMessage{To: "16505551234", Media: &provider.Media{Kind: provider.MediaAudio, ID: "777"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"audio","audio":{"id":"777"}}`,
		},
		{
			name: "Sticker",
			msg:  provider.OutgoingMessage{To: "16505551234", Media: &provider.Media{Kind: provider.MediaSticker, ID: "888"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"sticker","sticker":{"id":"888"}}`,
		},
		{
			name: "Reaction",
			msg:  provider.OutgoingMessage{To: "16505551234", Reaction: &provider.Reaction{MessageID: "wamid.IN3", Emoji: "👍"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"reaction",
				"reaction":{"message_id":"wamid.IN3","emoji":"👍"}}`,
		},
		{
			name: "ReactionRemoved",
			msg:  provider.OutgoingMessage{To: "16505551234", Reaction: &provider.Reaction{MessageID: "wamid.IN3"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"reaction",
				"reaction":{"message_id":"wamid.IN3","emoji":""}}`,
		},
		{
			name: "Location",
			msg: provider.OutgoingMessage{To: "16505551234", Location: &provider.Location{
				Latitude: 37.44216251868683, Longitude: -122.16153582049394, Name: "Philz Coffee", Address: "101 Forest Ave, Palo Alto, CA 94301"}},
			want: `{"messaging_product":"whatsapp","recipient_type":"individual","to":"16505551234","type":"location",
				"location":{"latitude":"37.44216251868683","longitude":"-122.16153582049394","name":"Philz Coffee","address":"101 Forest Ave, Palo Alto, CA 94301"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			res, err := c.SendMessage(context.Background(), f.Account(), tt.msg)
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			r := MustOneRequest(t, f)
			MustRequestLine(t, r, "POST", messagesPath)
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			MustJSONEqual(t, r.Body, tt.want)
			if res.MessageID != "wamid.FAKE0000000000000001" {
				t.Errorf("MessageID = %q", res.MessageID)
			}
			wantWaID := "16505551234"
			if res.WaID != wantWaID {
				t.Errorf("WaID = %q, want %q", res.WaID, wantWaID)
			}
			wantStatus := ""
			if tt.msg.Template != nil {
				wantStatus = "accepted"
			}
			if res.MessageStatus != wantStatus {
				t.Errorf("MessageStatus = %q, want %q", res.MessageStatus, wantStatus)
			}
		})
	}
}

func TestSendMessageInvalid(t *testing.T) {
	text := &provider.Text{Body: "hi"}
	img := func(m provider.Media) *provider.Media { m.Kind = provider.MediaImage; return &m }
	buttons := func(n int) []provider.ReplyButton {
		var bs []provider.ReplyButton
		for i := range n {
			bs = append(bs, provider.ReplyButton{ID: string(rune('a' + i)), Title: "T"})
		}
		return bs
	}
	rows := func(n int) []provider.ListRow {
		var rs []provider.ListRow
		for i := range n {
			rs = append(rs, provider.ListRow{ID: string(rune('a' + i)), Title: "T"})
		}
		return rs
	}
	tests := []struct {
		name string
		acc  func(provider.Account) provider.Account
		msg  provider.OutgoingMessage
	}{
		{name: "ErrNoRecipient", msg: provider.OutgoingMessage{Text: text}},
		{name: "ErrNoContent", msg: provider.OutgoingMessage{To: "1"}},
		{name: "ErrTwoContents", msg: provider.OutgoingMessage{To: "1", Text: text, Reaction: &provider.Reaction{MessageID: "m"}}},
		{name: "ErrEmptyText", msg: provider.OutgoingMessage{To: "1", Text: &provider.Text{}}},
		{name: "ErrCallPermissionNoBody", msg: provider.OutgoingMessage{To: "1", CallPermission: &provider.CallPermissionRequest{}}},
		{name: "ErrNoButtons", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b"}}},
		{name: "ErrFourButtons", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b", Buttons: buttons(4)}}},
		{name: "ErrLongButtonTitle", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b",
			Buttons: []provider.ReplyButton{{ID: "a", Title: "a title longer than 20"}}}}},
		{name: "ErrRepeatedButtonID", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b",
			Buttons: []provider.ReplyButton{{ID: "a", Title: "A"}, {ID: "a", Title: "B"}}}}},
		{name: "ErrButtonsNoBody", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Buttons: buttons(1)}}},
		{name: "ErrHeaderTextAndMedia", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b", Buttons: buttons(1),
			Header: &provider.Header{Text: "h", Media: img(provider.Media{ID: "1"})}}}},
		{name: "ErrAudioHeader", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b", Buttons: buttons(1),
			Header: &provider.Header{Media: &provider.Media{Kind: provider.MediaAudio, ID: "1"}}}}},
		{name: "ErrHeaderCaption", msg: provider.OutgoingMessage{To: "1", Buttons: &provider.ReplyButtons{Body: "b", Buttons: buttons(1),
			Header: &provider.Header{Media: img(provider.Media{ID: "1", Caption: "c"})}}}},
		{name: "ErrCTANoURL", msg: provider.OutgoingMessage{To: "1", CTAURL: &provider.CTAURL{Body: "b", DisplayText: "d"}}},
		{name: "ErrListNoSections", msg: provider.OutgoingMessage{To: "1", List: &provider.List{Body: "b", ButtonText: "x"}}},
		{name: "ErrListTooManyRows", msg: provider.OutgoingMessage{To: "1", List: &provider.List{Body: "b", ButtonText: "x",
			Sections: []provider.ListSection{{Title: "a", Rows: rows(6)}, {Title: "b", Rows: rows(5)}}}}},
		{name: "ErrListUntitledSections", msg: provider.OutgoingMessage{To: "1", List: &provider.List{Body: "b", ButtonText: "x",
			Sections: []provider.ListSection{{Rows: rows(1)}, {Rows: rows(1)}}}}},
		{name: "ErrMediaIDAndLink", msg: provider.OutgoingMessage{To: "1", Media: img(provider.Media{ID: "1", Link: "https://x"})}},
		{name: "ErrMediaNeitherIDNorLink", msg: provider.OutgoingMessage{To: "1", Media: img(provider.Media{})}},
		{name: "ErrMediaUnknownKind", msg: provider.OutgoingMessage{To: "1", Media: &provider.Media{Kind: "gif", ID: "1"}}},
		{name: "ErrAudioCaption", msg: provider.OutgoingMessage{To: "1", Media: &provider.Media{Kind: provider.MediaAudio, ID: "1", Caption: "c"}}},
		{name: "ErrImageFilename", msg: provider.OutgoingMessage{To: "1", Media: img(provider.Media{ID: "1", Filename: "a.jpg"})}},
		{name: "ErrTemplateNoLanguage", msg: provider.OutgoingMessage{To: "1", Template: &provider.Template{Name: "t"}}},
		{name: "ErrTemplateTwoHeaderParams", msg: provider.OutgoingMessage{To: "1", Template: &provider.Template{Name: "t", Language: "en",
			HeaderText: []provider.TemplateParam{{Text: "a"}, {Text: "b"}}}}},
		{name: "ErrTemplateHeaderTextAndMedia", msg: provider.OutgoingMessage{To: "1", Template: &provider.Template{Name: "t", Language: "en",
			HeaderText: []provider.TemplateParam{{Text: "a"}}, HeaderMedia: img(provider.Media{ID: "1"})}}},
		{name: "ErrTemplateEmptyBodyParam", msg: provider.OutgoingMessage{To: "1", Template: &provider.Template{Name: "t", Language: "en",
			Body: []provider.TemplateParam{{Text: "a"}, {Text: ""}}}}},
		{name: "ErrTemplateButtonSubType", msg: provider.OutgoingMessage{To: "1", Template: &provider.Template{Name: "t", Language: "en",
			Buttons: []provider.TemplateButton{{SubType: "phone_number", Value: "x"}}}}},
		{name: "ErrTemplateButtonRepeated", msg: provider.OutgoingMessage{To: "1", Template: &provider.Template{Name: "t", Language: "en",
			Buttons: []provider.TemplateButton{{SubType: provider.ButtonURL, Value: "x"}, {SubType: provider.ButtonURL, Value: "y"}}}}},
		{name: "ErrReactionNoMessage", msg: provider.OutgoingMessage{To: "1", Reaction: &provider.Reaction{Emoji: "x"}}},
		{name: "ErrLocationOutOfRange", msg: provider.OutgoingMessage{To: "1", Location: &provider.Location{Latitude: 91}}},
		{name: "ErrBadAPIVersion", acc: func(a provider.Account) provider.Account { a.APIVersion = "21"; return a },
			msg: provider.OutgoingMessage{To: "1", Text: text}},
		{name: "ErrNoPhoneID", acc: func(a provider.Account) provider.Account { a.PhoneID = ""; return a },
			msg: provider.OutgoingMessage{To: "1", Text: text}},
		{name: "ErrNoToken", acc: func(a provider.Account) provider.Account { a.AccessToken = ""; return a },
			msg: provider.OutgoingMessage{To: "1", Text: text}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			acc := f.Account()
			if tt.acc != nil {
				acc = tt.acc(acc)
			}
			_, err := c.SendMessage(context.Background(), acc, tt.msg)
			if !errors.Is(err, provider.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if provider.IsRetryable(err) {
				t.Errorf("IsRetryable(%v) = true", err)
			}
			if n := len(f.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

func TestSendMessageUnexpectedAnswer(t *testing.T) {
	f, c, _ := newFake(t)
	f.Script("POST /{phone}/messages", providertest.JSON(200, map[string]any{"messaging_product": "whatsapp", "messages": []any{}}))
	_, err := c.SendMessage(context.Background(), f.Account(), provider.OutgoingMessage{To: "1", Text: &provider.Text{Body: "x"}})
	if !errors.Is(err, provider.ErrUnexpectedResponse) {
		t.Fatalf("err = %v, want ErrUnexpectedResponse", err)
	}
}

func TestMarkRead(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f, c, _ := newFake(t)
		if err := c.MarkRead(context.Background(), f.Account(), "wamid.IN1"); err != nil {
			t.Fatalf("MarkRead: %v", err)
		}
		r := MustOneRequest(t, f)
		MustRequestLine(t, r, "POST", messagesPath)
		MustJSONEqual(t, r.Body, `{"messaging_product":"whatsapp","status":"read","message_id":"wamid.IN1"}`)
		if len(f.Sent()) != 0 {
			t.Errorf("a read receipt counted as a sent message")
		}
	})
	t.Run("ErrNoMessageID", func(t *testing.T) {
		f, c, _ := newFake(t)
		if err := c.MarkRead(context.Background(), f.Account(), ""); !errors.Is(err, provider.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	})
	t.Run("ErrSuccessFalse", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("POST /{phone}/messages", providertest.JSON(200, map[string]any{"success": false}))
		if err := c.MarkRead(context.Background(), f.Account(), "wamid.IN1"); !errors.Is(err, provider.ErrUnexpectedResponse) {
			t.Fatalf("err = %v, want ErrUnexpectedResponse", err)
		}
	})
}

func TestOutgoingMessageType(t *testing.T) {
	tests := []struct {
		name string
		msg  provider.OutgoingMessage
		want string
	}{
		{"Text", provider.OutgoingMessage{Text: &provider.Text{}}, "text"},
		{"Buttons", provider.OutgoingMessage{Buttons: &provider.ReplyButtons{}}, "interactive"},
		{"CTAURL", provider.OutgoingMessage{CTAURL: &provider.CTAURL{}}, "interactive"},
		{"List", provider.OutgoingMessage{List: &provider.List{}}, "interactive"},
		{"Template", provider.OutgoingMessage{Template: &provider.Template{}}, "template"},
		{"Document", provider.OutgoingMessage{Media: &provider.Media{Kind: provider.MediaDocument}}, "document"},
		{"Reaction", provider.OutgoingMessage{Reaction: &provider.Reaction{}}, "reaction"},
		{"Location", provider.OutgoingMessage{Location: &provider.Location{}}, "location"},
		{"Empty", provider.OutgoingMessage{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.msg.Type(); got != tt.want {
				t.Errorf("Type() = %q, want %q", got, tt.want)
			}
		})
	}
}
