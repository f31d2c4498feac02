package rest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/campaigns"
	"switchboard/ent"
	"switchboard/ent/campaign"
	"switchboard/ent/campaignrecipient"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
	"switchboard/ratelimit"
	"switchboard/worker"
)

// gateLimiter lets a send through per token given (tests pace the sender
// by hand); Slow calls are counted.
type gateLimiter struct {
	tokens  chan struct{}
	slowed  atomic.Int32
	waiting atomic.Int32
	mu      sync.Mutex
	rates   []float64
}

func newGate() *gateLimiter { return &gateLimiter{tokens: make(chan struct{}, 1000)} }

func (g *gateLimiter) give(n int) {
	for range n {
		g.tokens <- struct{}{}
	}
}

func (g *gateLimiter) Wait(ctx context.Context, _ string, perSecond float64) error {
	g.mu.Lock()
	g.rates = append(g.rates, perSecond)
	g.mu.Unlock()
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	select {
	case <-g.tokens:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gateLimiter) Slow(context.Context, string, time.Duration) error {
	g.slowed.Add(1)
	return nil
}

// openLimiter lets every send through at once.
type openLimiter struct{ slowed atomic.Int32 }

func (*openLimiter) Wait(ctx context.Context, _ string, _ float64) error { return ctx.Err() }
func (o *openLimiter) Slow(context.Context, string, time.Duration) error {
	o.slowed.Add(1)
	return nil
}

// readyCampaign creates a campaign of e.tpl with n recipients and returns
// its id.
func (e *campaignEnv) readyCampaign(t *testing.T, name string, first, n int) string {
	t.Helper()
	id := e.newCampaign(t, name, e.tpl)
	e.importN(t, id, first, n)
	return id
}

func (e *campaignEnv) campaign(t *testing.T, id string) *ent.Campaign { return e.campaignB(t, id) }

func (e *campaignEnv) campaignB(tb testing.TB, id string) *ent.Campaign {
	tb.Helper()
	c, err := e.Client().Campaign.Get(e.ctx, uuid.MustParse(id))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func (e *campaignEnv) waitCampaign(t *testing.T, id string, want campaign.Status) *ent.Campaign {
	t.Helper()
	var c *ent.Campaign
	testkit.Eventually(t, "campaign "+string(want), func() bool {
		c = e.campaign(t, id)
		return c.Status == want
	})
	return c
}

func (e *campaignEnv) recipients(t *testing.T, id string) []*ent.CampaignRecipient {
	t.Helper()
	rs, err := e.Client().CampaignRecipient.Query().Where(campaignrecipient.CampaignID(uuid.MustParse(id))).
		Order(ent.Asc(campaignrecipient.FieldPhoneNumber)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// sendsTo counts the platform calls that sent to phone.
func (e *campaignEnv) sendsTo(t *testing.T, phone string) int {
	t.Helper()
	n := 0
	for _, r := range e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages") {
		if body, _ := r.JSON(t).(map[string]any); body["to"] == phone {
			n++
		}
	}
	return n
}

// postStatuses posts a signed platform webhook with status reports of
// campaign sends: {wamid, status, callback data}.
func (e *campaignEnv) postStatuses(t *testing.T, statuses ...[3]string) {
	t.Helper()
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		errs := ""
		if s[1] == "failed" {
			errs = `,"errors":[{"code":131026,"title":"Message undeliverable","message":"Message undeliverable"}]`
		}
		parts[i] = fmt.Sprintf(`{"id":%q,"status":%q,"timestamp":"%d","recipient_id":"15550000000","biz_opaque_callback_data":%q%s}`,
			s[0], s[1], time.Now().Unix(), s[2], errs)
	}
	body := fmt.Sprintf(`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{
"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":%q},"statuses":[%s]}}]}]}`,
		providertest.PhoneID, strings.Join(parts, ","))
	mac := hmac.New(sha256.New, []byte(acctSecret))
	mac.Write([]byte(body))
	req, _ := http.NewRequest(http.MethodPost, e.Server.URL+"/api/webhook", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	e.Send(req).ExpectStatus(t, http.StatusOK)
}

func counters(c *ent.Campaign) [4]int {
	return [4]int{c.SentCount, c.DeliveredCount, c.ReadCount, c.FailedCount}
}

func TestCampaignSend(t *testing.T) {
	e := newCampaignEnv(t)
	live := wsDial(t, e.Server.URL, e.Admin, false)
	id := e.readyCampaign(t, "Send", 3000, 3)

	res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	if st := res.String("data.status"); st != "sending" || res.Get("data.started_at") == nil {
		t.Fatalf("start: %s", res.Raw)
	}
	if ev := wsWaitFor(t, live, events.FrameCampaignStatus); ev.Payload["id"] != id || ev.Payload["status"] != "sending" {
		t.Fatalf("event %+v", ev)
	}
	c := e.waitCampaign(t, id, campaign.StatusCompleted)
	if counters(c) != [4]int{3, 0, 0, 0} || c.CompletedAt == nil {
		t.Fatalf("counters %v", counters(c))
	}
	if ev := wsWaitFor(t, live, events.FrameCampaignStatus); ev.Payload["status"] != "completed" || ev.Payload["sent_count"] != float64(3) {
		t.Fatalf("event %+v", ev)
	}
	rs := e.recipients(t, id)
	for _, r := range rs {
		if e.sendsTo(t, r.PhoneNumber) != 1 {
			t.Errorf("%s was sent %d times", r.PhoneNumber, e.sendsTo(t, r.PhoneNumber))
		}
		body := e.sentTo(t, r.PhoneNumber)
		if body["biz_opaque_callback_data"] != fmt.Sprintf("cmp:%s:%s:1", id, r.ID) {
			t.Errorf("callback data %v", body["biz_opaque_callback_data"])
		}
		expectBody(t, body, fmt.Sprintf(`{"messaging_product":"whatsapp","recipient_type":"individual","to":%q,
			"type":"template","biz_opaque_callback_data":"cmp:%s:%s:1","template":{"name":"promo","language":{"code":"en_US"},
			"components":[{"type":"body","parameters":[{"type":"text","text":"Ann"},{"type":"text","text":"10%%"}]}]}}`,
			r.PhoneNumber, id, r.ID))
		if r.Status != campaignrecipient.StatusSent || r.ChatMessageID == nil || r.MessageID == nil || r.SentAt == nil {
			t.Fatalf("recipient %+v", r)
		}
		m, err := e.Client().Message.Get(e.ctx, *r.MessageID)
		if err != nil || m.Status != message.StatusSent || *m.ChatMessageID != *r.ChatMessageID || m.MessageType != "template" ||
			m.Content["body"] != "Hi Ann, 10% off today" {
			t.Fatalf("message %+v %v", m, err)
		}
	}
	page := e.Admin.Do(http.MethodGet, "/api/campaigns/"+id+"/recipients", nil).ExpectStatus(t, http.StatusOK)
	if page.String("data.recipients.0.status") != "sent" || page.Get("data.recipients.0.sent_at") == nil {
		t.Fatalf("recipients %s", page.Raw)
	}

	t.Run("StatusCounting", func(t *testing.T) {
		cb := func(r *ent.CampaignRecipient) string { return fmt.Sprintf("cmp:%s:%s:%d", id, r.ID, r.Attempts) }
		a, b, d := rs[0], rs[1], rs[2]
		// read before delivered counts both; a duplicate and a late
		// delivered change nothing; failed after sent counts failed.
		e.postStatuses(t, [3]string{*b.ChatMessageID, "read", cb(b)}, [3]string{*a.ChatMessageID, "delivered", cb(a)})
		e.postStatuses(t, [3]string{*b.ChatMessageID, "delivered", cb(b)}, [3]string{*b.ChatMessageID, "read", cb(b)},
			[3]string{*a.ChatMessageID, "delivered", cb(a)}, [3]string{*d.ChatMessageID, "sent", cb(d)})
		e.postStatuses(t, [3]string{*d.ChatMessageID, "failed", cb(d)}, [3]string{*d.ChatMessageID, "delivered", cb(d)})
		// A report of an earlier attempt, or of another wamid, is ignored.
		e.postStatuses(t, [3]string{*a.ChatMessageID, "read", fmt.Sprintf("cmp:%s:%s:7", id, a.ID)},
			[3]string{"wamid.other", "read", cb(a)})
		var got *ent.Campaign
		testkit.Eventually(t, "counters", func() bool {
			got = e.campaign(t, id)
			return counters(got) == [4]int{3, 2, 1, 1}
		})
		wsWaitFor(t, live, events.FrameCampaignProgress)
		after := e.recipients(t, id)
		if after[0].Status != "delivered" || after[1].Status != "read" || after[1].DeliveredAt == nil || after[2].Status != "failed" ||
			!strings.Contains(after[2].ErrorMessage, "undeliverable") {
			t.Fatalf("recipients %v %v %v", after[0].Status, after[1].Status, after[2].Status)
		}
		if m, _ := e.Client().Message.Get(e.ctx, *b.MessageID); m.Status != message.StatusRead {
			t.Errorf("the message did not follow: %s", m.Status)
		}
		// Nothing moved a second time: that nothing more comes is what is
		// checked, and no event marks it, so time passes.
		time.Sleep(100 * time.Millisecond)
		if counters(e.campaign(t, id)) != [4]int{3, 2, 1, 1} {
			t.Fatalf("counters moved again: %v", counters(e.campaign(t, id)))
		}
	})

	t.Run("RetryFailed", func(t *testing.T) {
		res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/retry-failed", nil).ExpectStatus(t, http.StatusOK)
		if res.Number("data.retry_count") != 1 || res.String("data.status") != "processing" || res.String("data.message") == "" {
			t.Fatalf("retry: %s", res.Raw)
		}
		c := e.waitCampaign(t, id, campaign.StatusCompleted)
		if counters(c) != [4]int{3, 2, 1, 0} {
			t.Fatalf("counters %v", counters(c))
		}
		d := e.recipients(t, id)[2]
		if d.Status != "sent" || d.Attempts != 2 || e.sendsTo(t, d.PhoneNumber) != 2 {
			t.Fatalf("retried recipient %+v, sends %d", d, e.sendsTo(t, d.PhoneNumber))
		}
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/retry-failed", nil).ExpectError(t, http.StatusBadRequest)
	})

	t.Run("Transitions", func(t *testing.T) {
		for _, action := range []string{"start", "pause", "cancel"} {
			e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/"+action, nil).ExpectError(t, http.StatusBadRequest)
		}
		draft := e.newCampaign(t, "Empty", e.tpl)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+draft+"/start", nil).ExpectError(t, http.StatusBadRequest)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+draft+"/pause", nil).ExpectError(t, http.StatusBadRequest)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+draft+"/cancel", nil).ExpectError(t, http.StatusBadRequest)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+draft+"/retry-failed", nil).ExpectError(t, http.StatusBadRequest)
		for _, action := range []string{"start", "pause", "cancel", "retry-failed"} {
			e.other.Do(http.MethodPost, "/api/campaigns/"+id+"/"+action, nil).ExpectError(t, http.StatusNotFound)
			e.Admin.Do(http.MethodPost, "/api/campaigns/nope/"+action, nil).ExpectError(t, http.StatusBadRequest)
		}
		pending := e.newTemplate(t, "not_yet", func(c *ent.TemplateCreate) { c.SetStatus("PENDING") })
		np := e.newCampaign(t, "Not approved", pending)
		e.importN(t, np, 9000, 1)
		res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+np+"/start", nil).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "not approved") {
			t.Errorf("message %s", res.Raw)
		}
	})
}

func TestCampaignPauseResumeCancel(t *testing.T) {
	e := newCampaignEnv(t)
	gate := newGate()
	e.App.Campaigns.Tune(gate, 0, 0)
	id := e.readyCampaign(t, "Paced", 4000, 5)
	// The account stores no tier; the platform reports TIER_1K when the
	// run starts.
	e.fake.SetPhoneNumber(map[string]any{"messaging_limit_tier": "TIER_1K", "whatsapp_business_manager_messaging_limit": "TIER_1K"})
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	gate.give(2)
	testkit.Eventually(t, "two sent", func() bool { return e.campaign(t, id).SentCount == 2 })

	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/pause", nil).ExpectStatus(t, http.StatusOK)
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/pause", nil).ExpectError(t, http.StatusBadRequest)
	// The sender stops: tokens given now are not used while paused.
	testkit.Eventually(t, "the sender waits no more", func() bool { return gate.waiting.Load() == 0 })
	gate.give(1)
	time.Sleep(600 * time.Millisecond) // that the token stays unused is what is checked: time passes
	c := e.campaign(t, id)
	if c.Status != campaign.StatusPaused || c.SentCount != 2 {
		t.Fatalf("paused campaign %s sent %d", c.Status, c.SentCount)
	}
	if e.Admin.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{"name": "x"}).Status != http.StatusBadRequest {
		t.Error("a paused campaign was edited")
	}

	res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	if res.String("data.status") != "sending" {
		t.Fatalf("resume: %s", res.Raw)
	}
	testkit.Eventually(t, "three sent", func() bool { return e.campaign(t, id).SentCount == 3 })
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/cancel", nil).ExpectStatus(t, http.StatusOK)
	gate.give(5)
	time.Sleep(600 * time.Millisecond) // that the tokens stay unused is what is checked: time passes
	c = e.campaign(t, id)
	if c.Status != campaign.StatusCancelled || c.SentCount != 3 {
		t.Fatalf("cancelled campaign %s sent %d", c.Status, c.SentCount)
	}
	for _, r := range e.recipients(t, id) {
		if n := e.sendsTo(t, r.PhoneNumber); n > 1 || (n == 1) != (r.Status == "sent") {
			t.Errorf("%s (%s) sent %d times", r.PhoneNumber, r.Status, n)
		}
	}
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectError(t, http.StatusBadRequest)
	gate.mu.Lock()
	rate := gate.rates[0]
	gate.mu.Unlock()
	if rate != 10 {
		t.Errorf("an account the platform reports at TIER_1K paced at %v/s, want 10", rate)
	}
	if a, err := e.Client().Account.Query().Only(e.ctx); err != nil || a.MessagingLimitTier != "TIER_1K" {
		t.Errorf("the account's stored tier after the run: %+v %v", a, err)
	}
}

func TestCampaignSchedule(t *testing.T) {
	e := newCampaignEnv(t)
	id := e.newCampaign(t, "Later", e.tpl)
	e.importN(t, id, 5000, 2)
	at := time.Now().Add(time.Hour).UTC()
	e.Admin.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{"scheduled_at": at.Format(time.RFC3339)}).ExpectStatus(t, http.StatusOK)
	res := e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	if res.String("data.status") != "scheduled" || res.Get("data.started_at") != nil {
		t.Fatalf("start: %s", res.Raw)
	}
	// Not due: the sweep leaves it scheduled.
	if _, err := e.App.Campaigns.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := e.campaign(t, id); c.Status != campaign.StatusScheduled {
		t.Fatalf("started early: %s", c.Status)
	}
	// Its time passes (as after a restart): the sweeps of two nodes
	// (three at once) start it once.
	if err := e.Client().Campaign.UpdateOneID(uuid.MustParse(id)).SetScheduledAt(time.Now().Add(-time.Minute)).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	live := wsDial(t, e.Server.URL, e.Admin, false)
	peer, _ := e.Peer()
	var wg sync.WaitGroup
	for _, node := range []*campaigns.Service{e.App.Campaigns, peer.Campaigns, e.App.Campaigns} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := node.Recover(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ev := wsWaitFor(t, live, events.FrameCampaignStatus); ev.Payload["status"] != "sending" {
		t.Fatalf("event %+v", ev)
	}
	c := e.waitCampaign(t, id, campaign.StatusCompleted)
	if c.SentCount != 2 || c.StartedAt == nil {
		t.Fatalf("campaign %+v", c)
	}
	for _, r := range e.recipients(t, id) {
		if n := e.sendsTo(t, r.PhoneNumber); n != 1 {
			t.Errorf("%s sent %d times", r.PhoneNumber, n)
		}
	}
	if ev := wsWaitFor(t, live, events.FrameCampaignStatus); ev.Payload["status"] != "completed" {
		t.Fatalf("a second start was announced: %+v", ev)
	}

	t.Run("CancelScheduled", func(t *testing.T) {
		id := e.newCampaign(t, "Never", e.tpl)
		e.importN(t, id, 5100, 1)
		e.Admin.Do(http.MethodPut, "/api/campaigns/"+id, map[string]any{"scheduled_at": at.Format(time.RFC3339)}).ExpectStatus(t, http.StatusOK)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/cancel", nil).ExpectStatus(t, http.StatusOK)
		if err := e.Client().Campaign.UpdateOneID(uuid.MustParse(id)).SetScheduledAt(time.Now().Add(-time.Minute)).Exec(e.ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.Campaigns.Recover(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c := e.campaign(t, id); c.Status != campaign.StatusCancelled || c.SentCount != 0 {
			t.Fatalf("cancelled campaign %s", c.Status)
		}
	})
}

func TestCampaignPlatformErrors(t *testing.T) {
	e := newCampaignEnv(t)
	lim := &openLimiter{}
	e.App.Campaigns.Tune(lim, 10*time.Millisecond, 0)
	route := "POST /{phone}/messages"

	t.Run("RetriedAndPermanent", func(t *testing.T) {
		e.fake.Script(route,
			providertest.GraphError(http.StatusBadRequest, 130429, "(#130429) Rate limit hit", "Cloud API message throughput has been reached."),
			providertest.GraphError(http.StatusBadRequest, 131056, "(#131056) (Business Account, Consumer Account) pair rate limit hit", ""),
			providertest.Unavailable(),
			providertest.InvalidParameter("Parameter value is not valid"),
		)
		id := e.readyCampaign(t, "Errors", 6000, 2)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
		c := e.waitCampaign(t, id, campaign.StatusCompleted)
		if counters(c) != [4]int{1, 0, 0, 1} {
			t.Fatalf("counters %v", counters(c))
		}
		var failed *ent.CampaignRecipient
		for _, r := range e.recipients(t, id) {
			if r.Status == campaignrecipient.StatusFailed {
				failed = r
			}
		}
		if failed == nil || !strings.Contains(failed.ErrorMessage, "Parameter value is not valid") {
			t.Fatalf("failed recipient %+v", failed)
		}
		if lim.slowed.Load() < 2 {
			t.Errorf("throughput and server errors slowed the sender %d times", lim.slowed.Load())
		}
	})

	t.Run("UnusableAccountFailsTheCampaign", func(t *testing.T) {
		var broken atomic.Bool
		broken.Store(true)
		e.fake.Handle(route, func(w http.ResponseWriter, r *http.Request) {
			if broken.Load() {
				providertest.InvalidToken().Write(w)
				return
			}
			e.fake.Default(w, r)
		})
		id := e.readyCampaign(t, "Token", 7000, 2)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
		c := e.waitCampaign(t, id, campaign.StatusFailed)
		if c.ErrorMessage == "" || c.FailedCount != 0 {
			t.Fatalf("campaign %+v", c)
		}
		for _, r := range e.recipients(t, id) {
			if r.Status != campaignrecipient.StatusPending {
				t.Errorf("recipient %s is %s", r.PhoneNumber, r.Status)
			}
		}
		// Restarting a failed campaign carries on.
		broken.Store(false)
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
		if c := e.waitCampaign(t, id, campaign.StatusCompleted); c.SentCount != 2 {
			t.Fatalf("sent %d", c.SentCount)
		}
	})
}

func TestCampaignReconciliation(t *testing.T) {
	e := newCampaignEnv(t)
	id := e.readyCampaign(t, "Crash", 8000, 3)
	cid := uuid.MustParse(id)
	rs := e.recipients(t, id)
	crashed, lost, other := rs[0], rs[1], rs[2]
	// A sender claimed two recipients and called the platform, then the
	// process died before writing anything: both are left sending.
	for _, r := range []*ent.CampaignRecipient{crashed, lost} {
		if err := e.Client().CampaignRecipient.UpdateOne(r).SetStatus(campaignrecipient.StatusSending).SetAttempts(1).
			SetSendingAt(time.Now()).Exec(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Client().CampaignRecipient.UpdateOne(lost).SetSendingAt(time.Now().Add(-time.Hour)).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Client().Campaign.UpdateOneID(cid).SetStatus(campaign.StatusSending).SetStartedAt(time.Now()).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	// The platform's status webhook of the crashed send arrives (read
	// before sent): the recipient and its message are recorded from it.
	wamid := "wamid.CRASHED0001"
	cb := fmt.Sprintf("cmp:%s:%s:1", id, crashed.ID)
	e.postStatuses(t, [3]string{wamid, "read", cb}, [3]string{wamid, "sent", cb})
	testkit.Eventually(t, "reconciled", func() bool {
		r, err := e.Client().CampaignRecipient.Get(e.ctx, crashed.ID)
		return err == nil && r.Status == campaignrecipient.StatusRead
	})
	r, _ := e.Client().CampaignRecipient.Get(e.ctx, crashed.ID)
	if r.ChatMessageID == nil || *r.ChatMessageID != wamid || r.MessageID == nil {
		t.Fatalf("recipient %+v", r)
	}
	if m, err := e.Client().Message.Get(e.ctx, *r.MessageID); err != nil || m.Status != message.StatusRead || m.MessageType != "template" {
		t.Fatalf("message %+v %v", m, err)
	}
	// The restart's sweep runs the sender: the others are handled, the
	// crashed one is not sent again, the lost one (no webhook within the
	// bound) is failed without a second send.
	if _, err := e.App.Campaigns.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := e.waitCampaign(t, id, campaign.StatusCompleted)
	if counters(c) != [4]int{2, 1, 1, 1} {
		t.Fatalf("counters %v", counters(c))
	}
	if n := e.sendsTo(t, crashed.PhoneNumber); n != 0 {
		t.Errorf("the reconciled recipient was sent again (%d)", n)
	}
	if n := e.sendsTo(t, lost.PhoneNumber); n != 0 {
		t.Errorf("the unknown recipient was sent again (%d)", n)
	}
	if n := e.sendsTo(t, other.PhoneNumber); n != 1 {
		t.Errorf("the pending recipient was sent %d times", n)
	}
	l, _ := e.Client().CampaignRecipient.Get(e.ctx, lost.ID)
	if l.Status != campaignrecipient.StatusFailed || !strings.Contains(l.ErrorMessage, "unknown") {
		t.Fatalf("lost recipient %+v", l)
	}
}

// TestCampaignEmbeddedEngines runs a campaign on SQLite and the
// in-process Redis: import (ent's bulk builder), send, status counting.
func TestCampaignEmbeddedEngines(t *testing.T) {
	fake := providertest.New(t)
	fake.SetAccessToken(acctToken)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL},
		apitest.Setting{Name: "DATABASE_URL", Value: ""}, apitest.Setting{Name: "REDIS_URL", Value: ""})
	mustCreateAccount(t, env.Admin, acctBody("Main", nil))
	e := &campaignEnv{sendEnv: &sendEnv{Env: env, fake: fake, ctx: viewer.SystemContext(context.Background(), env.OrgID)}}
	e.tpl = e.newTemplate(t, "promo", func(c *ent.TemplateCreate) { c.SetBodyContent("Hi {{1}}, {{2}} off today") })
	id := e.newCampaign(t, "Embedded", e.tpl)
	if res := e.importN(t, id, 100, 3); res.Number("data.imported") != 3 {
		t.Fatalf("import: %s", res.Raw)
	}
	if res := e.importN(t, id, 101, 3); res.Number("data.imported") != 1 || res.Number("data.duplicates") != 2 {
		t.Fatalf("second import: %s", res.Raw)
	}
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	e.waitCampaign(t, id, campaign.StatusCompleted)
	r := e.recipients(t, id)[0]
	cb := fmt.Sprintf("cmp:%s:%s:1", id, r.ID)
	e.postStatuses(t, [3]string{*r.ChatMessageID, "read", cb}, [3]string{*r.ChatMessageID, "delivered", cb})
	testkit.Eventually(t, "counters", func() bool { return counters(e.campaign(t, id)) == [4]int{4, 1, 1, 0} })
}

// TestCampaignFailsWhenTheTemplateStopsBeingUsable: a template paused at
// the platform (its status no longer APPROVED) fails the running campaign
// within seconds; its unsent recipients stay pending.
func TestCampaignFailsWhenTheTemplateStopsBeingUsable(t *testing.T) {
	e := newCampaignEnv(t)
	gate := newGate()
	e.App.Campaigns.Tune(gate, 0, 0)
	id := e.readyCampaign(t, "Paused template", 4000, 3)
	e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
	gate.give(1)
	testkit.Eventually(t, "one sent", func() bool { return e.campaign(t, id).SentCount == 1 })
	if err := e.Client().Template.UpdateOne(e.tpl).SetStatus("PAUSED").Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	c := e.waitCampaign(t, id, campaign.StatusFailed)
	if !strings.Contains(c.ErrorMessage, "not approved") || c.SentCount != 1 {
		t.Fatalf("campaign %+v", c)
	}
	pending := 0
	for _, r := range e.recipients(t, id) {
		if r.Status == campaignrecipient.StatusPending {
			pending++
		}
	}
	if pending != 2 {
		t.Fatalf("%d recipients pending, want 2", pending)
	}
}

// TestCampaignRunLease: one live run sends a campaign across nodes (its
// lease), and a run whose task the queue still holds but no process runs
// (a kill -9: the queue notices a minute or two later) is replaced by the
// recovery sweep at once.
func TestCampaignRunLease(t *testing.T) {
	e := newCampaignEnv(t)
	e.App.Campaigns.Tune(&openLimiter{}, 0, 0)
	ctx := context.Background()

	t.Run("AHeldLeaseKeepsOtherRunsOut", func(t *testing.T) {
		id := e.readyCampaign(t, "Leased", 6000, 2)
		cid := uuid.MustParse(id)
		held, err := e.App.Campaigns.RunLeases.Acquire(ctx, ratelimit.Slot{Key: "campaign-run:" + id, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		e.Admin.Do(http.MethodPost, "/api/campaigns/"+id+"/start", nil).ExpectStatus(t, http.StatusOK)
		// The run gives up after waiting for the lease; nothing is sent.
		if err := e.App.Campaigns.Run(ctx, e.OrgID, cid); err != nil {
			t.Fatal(err)
		}
		if c := e.campaign(t, id); c.SentCount != 0 || c.Status != campaign.StatusSending {
			t.Fatalf("sent without the lease: %+v", c)
		}
		if err := held.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.Campaigns.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if c := e.waitCampaign(t, id, campaign.StatusCompleted); c.SentCount != 2 {
			t.Fatalf("campaign %+v", c)
		}
	})

	t.Run("AStuckTaskIsReplaced", func(t *testing.T) {
		id := e.readyCampaign(t, "Stuck", 6100, 2)
		cid := uuid.MustParse(id)
		if err := e.Client().Campaign.UpdateOneID(cid).SetStatus(campaign.StatusSending).SetStartedAt(time.Now()).Exec(e.ctx); err != nil {
			t.Fatal(err)
		}
		// The campaign's task exists but will not run for an hour (as a
		// dead process's active task waits for the queue's recoverer).
		payload, _ := json.Marshal(map[string]string{"organization_id": e.OrgID.String(), "campaign_id": id})
		if _, err := e.App.Queue.Enqueue(ctx, asynq.NewTask(campaigns.TaskRun, payload), asynq.TaskID("campaign-run:"+id),
			asynq.Queue(worker.QueueCritical), asynq.ProcessIn(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.Campaigns.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if c := e.waitCampaign(t, id, campaign.StatusCompleted); c.SentCount != 2 {
			t.Fatalf("campaign %+v", c)
		}
		for _, r := range e.recipients(t, id) {
			if n := e.sendsTo(t, r.PhoneNumber); n != 1 {
				t.Errorf("%s sent %d times", r.PhoneNumber, n)
			}
		}
	})
}
