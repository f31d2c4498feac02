package webhooks_test

import (
	"fmt"
	"strings"
	"testing"

	"switchboard/apperr"
	"switchboard/webhooks"
)

func TestCheckHeaders(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		got, err := webhooks.CheckHeaders(map[string]string{"Authorization": " Bearer x ", "X-Custom_1": "a\tb"})
		if err != nil {
			t.Fatal(err)
		}
		if got["Authorization"] != "Bearer x" || got["X-Custom_1"] != "a\tb" || len(got) != 2 {
			t.Errorf("CheckHeaders = %v", got)
		}
	})
	t.Run("NilIsEmpty", func(t *testing.T) {
		got, err := webhooks.CheckHeaders(nil)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("CheckHeaders(nil) = %v, %v; want an empty map", got, err)
		}
	})

	many := map[string]string{}
	for i := range webhooks.MaxHeaders + 1 {
		many[fmt.Sprintf("X-H%d", i)] = "v"
	}
	errs := []struct {
		name    string
		headers map[string]string
	}{
		{name: "ErrHost", headers: map[string]string{"host": "evil.example"}},
		{name: "ErrContentLength", headers: map[string]string{"Content-Length": "1"}},
		{name: "ErrContentType", headers: map[string]string{"content-type": "text/plain"}},
		{name: "ErrTransferEncoding", headers: map[string]string{"Transfer-Encoding": "chunked"}},
		{name: "ErrConnection", headers: map[string]string{"Connection": "close"}},
		{name: "ErrStandardSignature", headers: map[string]string{"Webhook-Signature": "v1,forged"}},
		{name: "ErrWebhookID", headers: map[string]string{"webhook-id": "x"}},
		{name: "ErrCompatSignature", headers: map[string]string{"x-webhook-signature": "sha256=00"}},
		{name: "ErrEventHeader", headers: map[string]string{"X-Webhook-Event": "contact:created"}},
		{name: "ErrEmptyName", headers: map[string]string{"": "v"}},
		{name: "ErrNameWithSpace", headers: map[string]string{"X Bad": "v"}},
		{name: "ErrNameWithColon", headers: map[string]string{"X-Bad:": "v"}},
		{name: "ErrValueNewline", headers: map[string]string{"X-Inject": "a\r\nHost: evil"}},
		{name: "ErrValueTooLong", headers: map[string]string{"X-Long": strings.Repeat("v", 4097)}},
		{name: "ErrSameNameTwice", headers: map[string]string{"X-Token": "a", "x-token": "b"}},
		{name: "ErrTooMany", headers: many},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			got, err := webhooks.CheckHeaders(tc.headers)
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("CheckHeaders = %v, %v; want an invalid error", got, err)
			}
		})
	}
}

func TestEvents(t *testing.T) {
	want := []string{"message:incoming", "message:sent", "contact:created", "transfer:created", "transfer:assigned", "transfer:resumed", "template:status", "campaign:status", "campaign:progress"}
	evs := webhooks.Events()
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d", len(evs), len(want))
	}
	for i, e := range evs {
		if e.Value != want[i] || e.Label == "" || e.Description == "" || !webhooks.IsEvent(e.Value) {
			t.Errorf("event %d = %+v, want %s with a label and a description", i, e, want[i])
		}
	}
	for _, name := range []string{"", "webhook:test", "message:new", "Contact:Created"} {
		if webhooks.IsEvent(name) {
			t.Errorf("IsEvent(%q) = true", name)
		}
	}
}
