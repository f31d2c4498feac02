package provider_test

import (
	"context"
	"errors"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

func TestCallActions(t *testing.T) {
	ctx := context.Background()
	path := "/" + providertest.APIVersion + "/" + providertest.PhoneID + "/calls"
	tests := []struct {
		name string
		call func(*provider.Client, provider.Account) error
		want string
	}{
		{"PreAccept", func(c *provider.Client, a provider.Account) error {
			return c.AnswerCall(ctx, a, "wacid.1", provider.CallPreAccept, "v=0 answer")
		}, `{"messaging_product":"whatsapp","call_id":"wacid.1","action":"pre_accept","session":{"sdp_type":"answer","sdp":"v=0 answer"}}`},
		{"Accept", func(c *provider.Client, a provider.Account) error {
			return c.AnswerCall(ctx, a, "wacid.1", provider.CallAccept, "v=0 answer")
		}, `{"messaging_product":"whatsapp","call_id":"wacid.1","action":"accept","session":{"sdp_type":"answer","sdp":"v=0 answer"}}`},
		{"Reject", func(c *provider.Client, a provider.Account) error {
			return c.EndCall(ctx, a, "wacid.1", provider.CallReject)
		}, `{"messaging_product":"whatsapp","call_id":"wacid.1","action":"reject"}`},
		{"Terminate", func(c *provider.Client, a provider.Account) error {
			return c.EndCall(ctx, a, "wacid.1", provider.CallTerminate)
		}, `{"messaging_product":"whatsapp","call_id":"wacid.1","action":"terminate"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := providertest.New(t)
			if err := tt.call(f.Client(), f.Account()); err != nil {
				t.Fatal(err)
			}
			r := MustOneRequest(t, f)
			MustRequestLine(t, r, "POST", path)
			MustJSONEqual(t, r.Body, tt.want)
		})
	}
}

func TestStartCall(t *testing.T) {
	f := providertest.New(t)
	id, err := f.Client().StartCall(context.Background(), f.Account(), "15551234567", "v=0 offer", "log-1")
	if err != nil {
		t.Fatal(err)
	}
	r := MustOneRequest(t, f)
	MustJSONEqual(t, r.Body, `{"messaging_product":"whatsapp","to":"15551234567","action":"connect","session":{"sdp_type":"offer","sdp":"v=0 offer"},"biz_opaque_callback_data":"log-1"}`)
	acts := f.CallActions()
	if len(acts) != 1 || acts[0].CallID != id || id == "" {
		t.Fatalf("call id %q, fake recorded %+v", id, acts)
	}
}

func TestCallActionsRefuseBadInput(t *testing.T) {
	f := providertest.New(t)
	c, a := f.Client(), f.Account()
	ctx := context.Background()
	errs := []error{
		c.AnswerCall(ctx, a, "wacid.1", provider.CallTerminate, "sdp"),
		c.AnswerCall(ctx, a, "", provider.CallAccept, "sdp"),
		c.AnswerCall(ctx, a, "wacid.1", provider.CallAccept, ""),
		c.EndCall(ctx, a, "wacid.1", provider.CallAccept),
		c.EndCall(ctx, a, "", provider.CallTerminate),
	}
	_, err := c.StartCall(ctx, a, "", "sdp", "")
	errs = append(errs, err)
	for i, err := range errs {
		if !errors.Is(err, provider.ErrInvalid) {
			t.Errorf("case %d: err = %v, want ErrInvalid", i, err)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d requests sent for invalid calls", n)
	}
}

func TestCallActionPlatformError(t *testing.T) {
	f := providertest.New(t)
	f.RefuseCall("wacid.gone", providertest.GraphError(400, 138006, "(#138006) Call not found", ""))
	err := f.Client().EndCall(context.Background(), f.Account(), "wacid.gone", provider.CallTerminate)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Code != 138006 {
		t.Fatalf("err = %v, want the platform's error 138006", err)
	}
}
