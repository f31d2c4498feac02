package inbound

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decodeSeeds are deliveries in the platform's shapes and around them:
// each must read the same through decodePayload as through
// encoding/json.
var decodeSeeds = []string{
	benchDelivery,
	`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1","phone_number_id":"p"},"statuses":[{"id":"wamid.1","status":"failed","timestamp":"1700000000","recipient_id":"15550001","conversation":{"id":"c","origin":{"type":"service"}},"pricing":{"billable":true,"category":"service"},"errors":[{"code":131026,"title":"Undeliverable","message":"m","error_data":{"details":"d"}}]}]}}]}]}`,
	`{"entry":[{"changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"p"},"messages":[{"from":"1","id":"w","timestamp":"1","type":"image","image":{"id":"m","mime_type":"image/jpeg","caption":"c"}}]}}]}]}`,
	`{"entry":[{"changes":[{"field":"messages","value":{"messages":[{"from":"1","id":"w","type":"text","text":{"body":"hi"},"context":{"from":"2","id":"x"}}]}}]}]}`,
	`{"entry":[{"changes":[{"value":{"messages":[{"from":"1","id":"w","type":"text","text":{"body":"line\nnext \u00e9 \ud83d\ude00","preview_url":false}}]}}]}]}`,
	` { "Object" : "x" , "entry" : [ ] } `,                      // case-insensitive match: encoding/json's
	`{"object":"a","object":"b"}`,                               // a repeated key
	`{"entry":null}`,                                            // null
	`{"entry":[{"changes":[{"value":{"messages":[null,5]}}]}]}`, // messages of another kind
	`{"entry":[{"id":5}]}`,                                      // a value of another kind
	`{"entry":[{"changes":[{"value":{"statuses":[{"errors":[{"code":"x"}]}]}}]}]}`,
	`{"\u006fbject":"x","unknown":{"a":[1,2,{"b":"]"}]},"n":-1.5e3,"t":true}`,
	`{"entry":[{"changes":[{"value":{"contacts":[{"profile":{"name":"A"},"wa_id":"1"},{"wa_id":"2"}]}}]}]}`,
	`{"entry":[{"changes":[{"value":{"messages":[{"from":"1","id":"w","type":"text","text":{"body":"a"},"text":{"x":1}}]}}]}]}`,
	"{\"entry\":[{\"changes\":[{\"value\":{\"messages\":[{\"from\":\"\xff\",\"id\":\"w\",\"type\":\"text\",\"text\":{}}]}}]}]}",
	`{"entry":[{"changes":[{"value":{"statuses":[{"id":"w","status":"sent","biz_opaque_callback_data":"cmp:a:b:1"}]}}]}]}`,
	`{"entry":[{"changes":[{"value":{"statuses":[{"id":"w","Biz_Opaque_Callback_Data":"x"}]}}]}]}`,
	`{"entry":[{"id":"waba","changes":[{"field":"message_template_status_update","value":{"event":"APPROVED","message_template_id":123,"message_template_name":"n","message_template_language":"en","reason":null}}]}]}`,
	`[]`, `null`, `"x"`, `{}`, `{"entry":[]}`,
}

// checkDecode fails when parsePayload reads body otherwise than
// encoding/json does.
func checkDecode(t *testing.T, body []byte) {
	t.Helper()
	got, gotErr := parsePayload(body)
	var want payload
	wantErr := json.Unmarshal(replaceNULEscapes(body), &want)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, encoding/json's %v", body, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(*got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", body, *got, want)
	}
}

func TestDecodePayloadAsEncodingJSON(t *testing.T) {
	for _, seed := range decodeSeeds {
		checkDecode(t, []byte(seed))
	}
}

// TestDecodePayloadReadsThePlatformShapes: the platform's deliveries
// take decodePayload's way, with their plain text messages read without
// a map.
func TestDecodePayloadReadsThePlatformShapes(t *testing.T) {
	for _, seed := range decodeSeeds[:5] {
		p, ok := decodePayload([]byte(seed))
		if !ok {
			t.Fatalf("%s: not read by decodePayload", seed)
		}
		if len(p.Entry) != 1 || len(p.Entry[0].Changes) != 1 {
			t.Fatalf("%s: %+v", seed, p)
		}
	}
	p, _ := decodePayload([]byte(benchDelivery))
	v := p.Entry[0].Changes[0].Value
	if len(v.Messages) != 1 || !v.Messages[0].plain || v.Messages[0].text.body != "bench message 123456" ||
		v.Contacts[0].Profile.Name != "Bench 123456" || v.Metadata.PhoneNumberID != "697842683779665" {
		t.Fatalf("bench delivery read as %+v", v)
	}
	for _, seed := range decodeSeeds[5:11] {
		if _, ok := decodePayload([]byte(seed)); ok {
			t.Fatalf("%s: decodePayload must leave it to encoding/json", seed)
		}
	}
}

// checkTextMessage fails when a message parseTextMessage reads stores
// otherwise than the same message read as a map.
func checkTextMessage(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	plain, ok := parseTextMessage(data)
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		if ok {
			t.Fatalf("%q: read as a text message, but is no object", data)
		}
		return
	}
	if !ok {
		return
	}
	fast, slow := rawMessage{plain: true, text: plain}, rawMessage{fields: fields}
	for _, k := range []string{"from", "id", "timestamp", "type", "other"} {
		if fast.str(k) != slow.str(k) {
			t.Fatalf("%q: %s %q, the map's %q", data, k, fast.str(k), slow.str(k))
		}
	}
	if got, want := extractContent(fast), extractContent(slow); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: content %+v, the map's %+v", data, got, want)
	}
}

var textMessageSeeds = []string{
	`{"from":"1","id":"w","timestamp":"1","type":"text","text":{"body":"hi"}}`,
	`{"type":"text","text":{"body":"a\"b\\\u0041\n"},"from":"\u0031"}`,
	`{"type":"text","text":{}}`,
	`{"type":"text","text":{"body":"a"},"text":{}}`,
	`{"type":"text","text":{"body":5}}`,
	`{"type":"text","text":"x"}`,
	`{"type":"text","Text":{"body":"x"}}`,
	`{"type":"image","text":{"body":"x"}}`,
	`{"type":"text","text":{"body":"x","extra":[1,{"a":"}"}]}}`,
	"{\"type\":\"text\",\"text\":{\"body\":\"\xffa\"}}",
	`{"type":"text","text":{"body":"x"},"context":{"id":"c"}}`,
	`{"from":null,"type":"text","text":{"body":"x"}}`,
}

func TestTextMessageAsMap(t *testing.T) {
	for _, seed := range textMessageSeeds {
		checkTextMessage(t, []byte(seed))
	}
	if _, ok := parseTextMessage([]byte(textMessageSeeds[0])); !ok {
		t.Fatal("a plain text message must be read without a map")
	}
}

// FuzzDecodePayload: any body reads the same through parsePayload as
// through encoding/json. go test -run '^$' -fuzz FuzzDecodePayload ./inbound/
func FuzzDecodePayload(f *testing.F) {
	for _, seed := range decodeSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecode(t, body) })
}

// FuzzTextMessage: a message read as a plain text message stores what the
// same message read as a map stores. go test -run '^$' -fuzz FuzzTextMessage ./inbound/
func FuzzTextMessage(f *testing.F) {
	for _, seed := range textMessageSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkTextMessage(t, data) })
}
