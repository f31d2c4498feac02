package inbound

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"switchboard/calling"
	"switchboard/ent"
)

func TestCallChanges(t *testing.T) {
	const body = `{"object":"whatsapp_business_account","entry":[{"id":"WABA","changes":[
{"field":"calls","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1555","phone_number_id":"P1"},
 "contacts":[{"profile":{"name":"Ann"},"wa_id":"15550001"}],
 "calls":[
  {"id":"wacid.1","from":"15550001","to":"1555","event":"connect","direction":"USER_INITIATED","timestamp":"1700000000","session":{"sdp_type":"offer","sdp":"v=0 offer"}},
  {"id":"wacid.1","from":"15550001","to":"1555","event":"terminate","direction":"USER_INITIATED","timestamp":"1700000060","status":"Completed","duration":42},
  {"id":"wacid.2","from":"1555","to":"15550001","event":"connect","direction":"BUSINESS_INITIATED","timestamp":"1700000100","session":{"sdp_type":"answer","sdp":"v=0 answer"}},
  {"id":"","event":"connect"},
  {"id":"wacid.3","event":"ringing_somewhere"}],
 "statuses":[{"id":"wacid.2","type":"call","status":"ACCEPTED","timestamp":"1700000101","recipient_id":"15550001"}]}},
{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1555","phone_number_id":"P1"},
 "messages":[{"from":"15550001","id":"wamid.r","timestamp":"1700000200","type":"interactive","interactive":{"type":"call_permission_reply",
  "call_permission_reply":{"response":"accept","is_permanent":false,"expiration_timestamp":1700600000,"response_source":"user_action"}}},
  {"from":"15550002","id":"wamid.d","timestamp":"1700000200","type":"interactive","interactive":{"type":"call_permission_reply",
  "call_permission_reply":{"response":"reject","is_permanent":false}}}]}}]}]}`
	p, err := parsePayload([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	acc := &ent.Account{Name: "Main", PhoneID: "P1"}
	var w callWork
	s.addCallChange(&w, acc, p.Entry[0].Changes[0].Value)
	if !hasPermissionReply(p.Entry[0].Changes[1].Value) {
		t.Fatal("the permission replies were not seen")
	}
	s.addPermissionReplies(&w, acc, p.Entry[0].Changes[1].Value)
	want := []calling.PlatformEvent{
		{Account: acc, CallID: "wacid.1", Kind: "connect", Direction: "USER_INITIATED", From: "15550001", To: "1555", ProfileName: "Ann",
			Timestamp: time.Unix(1700000000, 0).UTC(), SDPType: "offer", SDP: "v=0 offer"},
		{Account: acc, CallID: "wacid.1", Kind: "terminate", Direction: "USER_INITIATED", From: "15550001", To: "1555", ProfileName: "Ann",
			Timestamp: time.Unix(1700000060, 0).UTC(), Status: "Completed", Duration: 42},
		{Account: acc, CallID: "wacid.2", Kind: "connect", Direction: "BUSINESS_INITIATED", From: "1555", To: "15550001", ProfileName: "Ann",
			Timestamp: time.Unix(1700000100, 0).UTC(), SDPType: "answer", SDP: "v=0 answer"},
		{Account: acc, CallID: "wacid.2", Kind: "status", To: "15550001", Timestamp: time.Unix(1700000101, 0).UTC(), Status: "ACCEPTED"},
	}
	if len(w.events) != len(want) {
		t.Fatalf("got %d events, want %d: %+v", len(w.events), len(want), w.events)
	}
	for i := range want {
		if w.events[i] != want[i] {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, w.events[i], want[i])
		}
	}
	if len(w.replies) != 2 {
		t.Fatalf("replies = %+v", w.replies)
	}
	exp := time.Unix(1700600000, 0).UTC()
	if r := w.replies[0]; !r.Accepted || r.Permanent || r.From != "15550001" || r.ExpiresAt == nil || !r.ExpiresAt.Equal(exp) {
		t.Errorf("accept reply = %+v", r)
	}
	if r := w.replies[1]; r.Accepted || r.ExpiresAt != nil || r.From != "15550002" {
		t.Errorf("reject reply = %+v", r)
	}
}
