package campaigns

import (
	"testing"

	"github.com/google/uuid"

	"switchboard/ent/campaignrecipient"
)

const (
	pending   = campaignrecipient.StatusPending
	sending   = campaignrecipient.StatusSending
	sent      = campaignrecipient.StatusSent
	delivered = campaignrecipient.StatusDelivered
	read      = campaignrecipient.StatusRead
	failed    = campaignrecipient.StatusFailed
)

// TestRecipientStateMachine checks every move of a recipient and the
// counters it adds: forward only, each state counted once, failed from
// pending, sending or sent only.
func TestRecipientStateMachine(t *testing.T) {
	all := []campaignrecipient.Status{pending, sending, sent, delivered, read, failed}
	want := map[[2]campaignrecipient.Status]delta{
		{pending, sent}: {sent: 1}, {pending, delivered}: {sent: 1, delivered: 1}, {pending, read}: {sent: 1, delivered: 1, read: 1},
		{sending, sent}: {sent: 1}, {sending, delivered}: {sent: 1, delivered: 1}, {sending, read}: {sent: 1, delivered: 1, read: 1},
		{sent, delivered}: {delivered: 1}, {sent, read}: {delivered: 1, read: 1}, {delivered, read}: {read: 1},
		{pending, failed}: {failed: 1}, {sending, failed}: {failed: 1}, {sent, failed}: {failed: 1},
	}
	for _, from := range all {
		for _, to := range all {
			d, ok := want[[2]campaignrecipient.Status{from, to}]
			if got := canAdvance(from, to); got != ok {
				t.Errorf("canAdvance(%s, %s) = %v, want %v", from, to, got, ok)
				continue
			}
			if ok && step(from, to) != d {
				t.Errorf("step(%s, %s) = %+v, want %+v", from, to, step(from, to), d)
			}
		}
	}
}

// TestStatusSequences replays report sequences (duplicates, out of order)
// and checks that the counters equal the recipient's final state.
func TestStatusSequences(t *testing.T) {
	for name, tc := range map[string]struct {
		reports []campaignrecipient.Status
		final   campaignrecipient.Status
		want    delta
	}{
		"InOrder":            {[]campaignrecipient.Status{sent, delivered, read}, read, delta{1, 1, 1, 0}},
		"ReadFirst":          {[]campaignrecipient.Status{read, delivered, sent}, read, delta{1, 1, 1, 0}},
		"Duplicates":         {[]campaignrecipient.Status{sent, sent, delivered, delivered}, delivered, delta{1, 1, 0, 0}},
		"FailedAfterSent":    {[]campaignrecipient.Status{sent, failed, delivered}, failed, delta{1, 0, 0, 1}},
		"FailedAfterRead":    {[]campaignrecipient.Status{read, failed}, read, delta{1, 1, 1, 0}},
		"FailedTwice":        {[]campaignrecipient.Status{failed, failed}, failed, delta{0, 0, 0, 1}},
		"DeliveredAfterFail": {[]campaignrecipient.Status{failed, delivered}, failed, delta{0, 0, 0, 1}},
	} {
		t.Run(name, func(t *testing.T) {
			state, total := sending, delta{}
			for _, to := range tc.reports {
				if canAdvance(state, to) {
					total.add(step(state, to))
					state = to
				}
			}
			if state != tc.final || total != tc.want {
				t.Fatalf("final %s counters %+v, want %s %+v", state, total, tc.final, tc.want)
			}
		})
	}
}

func TestCallbackData(t *testing.T) {
	c, r := uuid.New(), uuid.New()
	s := callbackData(c, r, 3)
	if len(s) > 512 {
		t.Fatalf("callback data longer than the platform's 512: %d", len(s))
	}
	gc, gr, n, ok := parseCallback(s)
	if !ok || gc != c || gr != r || n != 3 {
		t.Fatalf("parse(%q) = %s %s %d %v", s, gc, gr, n, ok)
	}
	for _, bad := range []string{"", "cmp:", "cmp:x:y:1", "other:" + c.String() + ":" + r.String() + ":1",
		"cmp:" + c.String() + ":" + r.String(), "cmp:" + c.String() + ":" + r.String() + ":x"} {
		if _, _, _, ok := parseCallback(bad); ok {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}
