package main

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/bench/internal/fakeplatform"
	"switchboard/provider/providertest"
)

// templateName is the APPROVED template the fake holds for the run.
const templateName = "fault_promo"

// campaignRun is the run's campaign against the Graph API fake.
type campaignRun struct {
	fake       *fakeplatform.Platform
	acc        *account
	id         string
	recipients int
	cancelled  bool
}

// setupCampaign serves the fake (echoing the platform's status webhooks
// to echoURL), creates an account on it at tier, syncs an APPROVED
// template and creates a draft campaign of n recipients.
func setupCampaign(ctx, fctx context.Context, a *api, runID, fakeAddr, echoURL, tier string, n int) (*campaignRun, error) {
	echo := &fakeplatform.Echo{URL: echoURL, Delay: 200 * time.Millisecond}
	fake, err := fakeplatform.Serve(fctx, fakeAddr, echo)
	if err != nil {
		return nil, err
	}
	fake.SetTier(tier)
	acc, err := a.createAccount(ctx, "fault-campaign-"+runID)
	if err != nil {
		return nil, err
	}
	echo.AppSecret, echo.BusinessID = acc.Secret, acc.BusinessID
	fake.Start(fctx)
	if err := a.Call(ctx, http.MethodPost, "/api/accounts/"+acc.ID+"/test", nil, http.StatusOK, nil); err != nil {
		return nil, fmt.Errorf("testing the campaign account against the fake: %w", err)
	}
	fake.Fake.AddTemplate(providertest.Template{WABA: acc.BusinessID, Name: templateName, Language: "en_US",
		Status: "APPROVED", Category: "MARKETING",
		Components: []map[string]any{{"type": "BODY", "text": "Hi {{1}}, {{2}} off today",
			"example": map[string]any{"body_text": [][]string{{"Ann", "10%"}}}}}})
	if err := a.Call(ctx, http.MethodPost, "/api/templates/sync", map[string]string{"chat_account": acc.Name}, http.StatusOK, nil); err != nil {
		return nil, fmt.Errorf("syncing templates: %w", err)
	}
	var list struct {
		Templates []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"templates"`
	}
	if err := a.Call(ctx, http.MethodGet, "/api/templates?account="+acc.Name+"&limit=100", nil, http.StatusOK, &list); err != nil {
		return nil, err
	}
	var tplID string
	for _, t := range list.Templates {
		if t.Name == templateName {
			tplID = t.ID
		}
	}
	if tplID == "" {
		return nil, fmt.Errorf("template %s not found after sync", templateName)
	}
	var c struct {
		ID string `json:"id"`
	}
	if err := a.Call(ctx, http.MethodPost, "/api/campaigns", map[string]any{
		"name": "fault " + runID, "chat_account": acc.Name, "template_id": tplID,
	}, http.StatusCreated, &c); err != nil {
		return nil, fmt.Errorf("creating the campaign: %w", err)
	}
	prefix := "1" + benchkit.RandomDigits(4)
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"phone_number": fmt.Sprintf("+%s%07d", prefix, i), "recipient_name": fmt.Sprint("R", i),
			"template_params": map[string]any{"1": "Ann", "2": "10%"}}
	}
	var res struct {
		Imported int `json:"imported"`
	}
	if err := a.Call(ctx, http.MethodPost, "/api/campaigns/"+c.ID+"/recipients/import",
		map[string]any{"recipients": rows}, http.StatusOK, &res); err != nil {
		return nil, fmt.Errorf("importing recipients: %w", err)
	}
	if res.Imported != n {
		return nil, fmt.Errorf("imported %d recipients of %d", res.Imported, n)
	}
	return &campaignRun{fake: fake, acc: acc, id: c.ID, recipients: n}, nil
}

// start starts the campaign through a while the processes of others are
// stopped (SIGSTOP), until the fake has its first send: its run task can
// only go to a's node.
func (c *campaignRun) start(ctx context.Context, a *api, others []int) error {
	for _, pid := range others {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			return fmt.Errorf("SIGSTOP %d: %w", pid, err)
		}
	}
	defer func() {
		for _, pid := range others {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	if err := a.Call(ctx, http.MethodPost, "/api/campaigns/"+c.id+"/start", nil, http.StatusOK, nil); err != nil {
		return fmt.Errorf("starting the campaign: %w", err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c.fake.Accepted() > 0 {
			return nil
		}
	}
	return fmt.Errorf("campaign %s: no send within 30 s of its start", c.id)
}

// cancel cancels the campaign if it is still sending (a soak's campaign
// at the load's end); its pending recipients stay pending.
func (c *campaignRun) cancel(ctx context.Context, a *api) error {
	var camp struct {
		Status string `json:"status"`
	}
	if err := a.Call(ctx, http.MethodGet, "/api/campaigns/"+c.id, nil, http.StatusOK, &camp); err != nil {
		return err
	}
	if camp.Status != "sending" {
		return nil
	}
	c.cancelled = true
	return a.Call(ctx, http.MethodPost, "/api/campaigns/"+c.id+"/cancel", nil, http.StatusOK, nil)
}

// wait returns once no recipient is sending or (unless the campaign was
// cancelled) pending, or at deadline.
func (c *campaignRun) wait(ctx context.Context, st *store, deadline time.Time) map[string]int {
	var last map[string]int
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if byStatus, err := st.recipients(ctx, c.id); err == nil {
			last = byStatus
			if (c.cancelled || byStatus["pending"] == 0) && byStatus["sending"] == 0 {
				return byStatus
			}
		}
		time.Sleep(time.Second)
	}
	return last
}

// result compares the fake's sends with the recipients.
func (c *campaignRun) result(ctx context.Context, a *api, st *store, byStatus map[string]int) campaignResult {
	stats := c.fake.Fake.SendStats()
	r := campaignResult{ID: c.id, Recipients: c.recipients, ByStatus: byStatus, Accepted: stats.Accepted, Cancelled: c.cancelled}
	for _, n := range stats.ByRecipient {
		switch {
		case n.Accepted == 1:
			r.SentOnce++
		case n.Accepted > 1:
			r.SentTwice++
		}
	}
	r.Never = c.recipients - r.SentOnce - r.SentTwice
	if !c.cancelled {
		r.Pending = byStatus["pending"]
	}
	if cbs, err := st.sendingCallbacks(ctx, c.id); err == nil {
		for _, cb := range cbs {
			if stats.ByCallback[cb].Accepted > 0 {
				r.SendingAccepted++
			} else {
				r.SendingNeverSent++
			}
		}
	}
	var camp struct {
		Status string `json:"status"`
	}
	if err := a.Call(ctx, http.MethodGet, "/api/campaigns/"+c.id, nil, http.StatusOK, &camp); err == nil {
		r.Status = camp.Status
	}
	r.Echoed, r.EchoDropped = c.fake.Echoed.Load(), c.fake.EchoDropped.Load()
	return r
}

// campaignResult is what the platform saw of the campaign.
type campaignResult struct {
	ID         string         `json:"id"`
	Status     string         `json:"status"`
	Recipients int            `json:"recipients"`
	Accepted   int            `json:"sends_accepted"`
	SentOnce   int            `json:"sent_once"`
	SentTwice  int            `json:"sent_twice"`
	Never      int            `json:"never_sent"`
	Pending    int            `json:"left_pending"` // not counted when cancelled
	Cancelled  bool           `json:"cancelled"`    // a soak cancels it at the load's end
	ByStatus   map[string]int `json:"by_status"`
	// Rows left sending: their send reached the fake (the echoed status
	// should have reconciled them: a defect), or never did (claimed by a
	// process that died before the call: failed after the server's
	// 10-minute outcome-unknown bound, by design).
	SendingAccepted  int   `json:"sending_accepted"`
	SendingNeverSent int   `json:"sending_never_sent"`
	Echoed           int64 `json:"statuses_echoed"`
	EchoDropped      int64 `json:"statuses_dropped"`
}
