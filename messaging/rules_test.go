package messaging_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/messaging"
	"switchboard/provider"
)

func TestNormalizePhone(t *testing.T) {
	for name, tc := range map[string]struct {
		in, want string
		ok       bool
	}{
		"Plus":         {"+1 (555) 123-4567", "15551234567", true},
		"DoubleZero":   {"0049 30.1234567", "49301234567", true},
		"Digits":       {"15551234567", "15551234567", true},
		"ErrEmpty":     {"  ", "", false},
		"ErrLetters":   {"+1 555 CALL NOW", "", false},
		"ErrTooShort":  {"12345", "", false},
		"ErrTooLong":   {"1234567890123456", "", false},
		"ErrInnerPlus": {"1+5551234567", "", false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := messaging.NormalizePhone(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("NormalizePhone(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}

func TestServiceWindowOpen(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { ts := now.Add(-d); return &ts }
	for name, tc := range map[string]struct {
		contact *ent.Contact
		want    bool
	}{
		"NoContact":      {nil, false},
		"NeverWrote":     {&ent.Contact{}, false},
		"WroteAnHourAgo": {&ent.Contact{LastInboundAt: at(time.Hour)}, true},
		"JustInside":     {&ent.Contact{LastInboundAt: at(messaging.ServiceWindow - time.Second)}, true},
		"ExactlyClosed":  {&ent.Contact{LastInboundAt: at(messaging.ServiceWindow)}, false},
		"TwoDaysAgo":     {&ent.Contact{LastInboundAt: at(48 * time.Hour)}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := messaging.ServiceWindowOpen(tc.contact, now); got != tc.want {
				t.Fatalf("ServiceWindowOpen = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	send := asynq.NewTask(messaging.TaskSend, nil)
	plain := errors.New("boom")
	throttled := fmt.Errorf("wrapped: %w", &provider.Error{Status: 429, RetryAfter: 90 * time.Second})
	for name, tc := range map[string]struct {
		n    int
		err  error
		want time.Duration
	}{
		"First":               {0, plain, time.Second},
		"Third":               {2, plain, 4 * time.Second},
		"Capped":              {12, plain, 5 * time.Minute},
		"RetryAfterLonger":    {0, throttled, 90 * time.Second},
		"RetryAfterShorter":   {9, throttled, 5 * time.Minute},
		"RetryAfterBounded":   {0, &provider.Error{Status: 429, RetryAfter: time.Hour}, 15 * time.Minute},
		"NegativeCountIsZero": {-1, plain, time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			if got := messaging.RetryDelay(tc.n, tc.err, send); got != tc.want {
				t.Fatalf("RetryDelay(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
	t.Run("OtherTaskTypesKeepTheDefault", func(t *testing.T) {
		// asynq's default waits at least 15 s; the send schedule 1 s.
		if got := messaging.RetryDelay(0, plain, asynq.NewTask("media:fetch", nil)); got < 15*time.Second {
			t.Fatalf("RetryDelay of another task type = %v, want asynq's default (>= 15s)", got)
		}
	})
}

func TestCheckProductListSize(t *testing.T) {
	for _, tc := range []struct {
		sections, products int
		ok                 bool
	}{
		{1, 1, true}, {provider.MaxProductSections, provider.MaxProductItems, true},
		{0, 0, false}, {provider.MaxProductSections + 1, 11, false}, {1, provider.MaxProductItems + 1, false},
	} {
		err := messaging.CheckProductListSize(tc.sections, tc.products)
		if (err == nil) != tc.ok || err != nil && apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%d sections, %d products: %v", tc.sections, tc.products, err)
		}
	}
}
