package provider_test

import (
	"context"
	"errors"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

func TestPhoneNumberInfo(t *testing.T) {
	const (
		allFields    = "id,display_phone_number,verified_name,quality_rating,code_verification_status,account_mode,throughput,messaging_limit_tier,whatsapp_business_manager_messaging_limit"
		legacyFields = "id,display_phone_number,verified_name,quality_rating,code_verification_status,account_mode,throughput,messaging_limit_tier"
		baseFields   = "id,display_phone_number,verified_name,quality_rating,code_verification_status,account_mode,throughput"
	)
	live := provider.PhoneNumber{
		ID: providertest.PhoneID, DisplayPhoneNumber: "+1 555-078-3881", VerifiedName: "Switchboard Test",
		QualityRating: "GREEN", MessagingLimitTier: "TIER_10K", CodeVerificationStatus: "VERIFIED",
		AccountMode: "LIVE", ThroughputLevel: "STANDARD",
	}
	with := func(change func(*provider.PhoneNumber)) provider.PhoneNumber {
		p := live
		change(&p)
		return p
	}
	tests := []struct {
		name       string
		set        map[string]any
		want       provider.PhoneNumber
		wantFields []string
	}{
		{name: "Live", want: live, wantFields: []string{allFields}},
		{name: "PortfolioLimitPreferred",
			set:        map[string]any{"messaging_limit_tier": "TIER_1K", "whatsapp_business_manager_messaging_limit": "TIER_2K"},
			want:       with(func(p *provider.PhoneNumber) { p.MessagingLimitTier = "TIER_2K" }),
			wantFields: []string{allFields}},
		{name: "SandboxIsTestNumber",
			set: map[string]any{"account_mode": "SANDBOX", "code_verification_status": "NOT_VERIFIED", "quality_rating": "UNKNOWN"},
			want: with(func(p *provider.PhoneNumber) {
				p.AccountMode, p.CodeVerificationStatus, p.QualityRating, p.IsTestNumber = "SANDBOX", "NOT_VERIFIED", "UNKNOWN", true
			}),
			wantFields: []string{allFields}},
		{name: "OlderVersionFallsBackToLegacyTier",
			set:        map[string]any{"whatsapp_business_manager_messaging_limit": nil, "messaging_limit_tier": "TIER_1K"},
			want:       with(func(p *provider.PhoneNumber) { p.MessagingLimitTier = "TIER_1K" }),
			wantFields: []string{allFields, legacyFields}},
		{name: "NoTierFallsBackToThroughput",
			set:        map[string]any{"whatsapp_business_manager_messaging_limit": nil, "messaging_limit_tier": nil, "throughput": map[string]any{"level": "HIGH"}},
			want:       with(func(p *provider.PhoneNumber) { p.MessagingLimitTier, p.ThroughputLevel = "HIGH", "HIGH" }),
			wantFields: []string{allFields, legacyFields, baseFields}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			f.SetPhoneNumber(tt.set)
			got, err := c.PhoneNumberInfo(context.Background(), f.Account())
			if err != nil {
				t.Fatalf("PhoneNumberInfo: %v", err)
			}
			if *got != tt.want {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
			reqs := f.Requests()
			if len(reqs) != len(tt.wantFields) {
				t.Fatalf("%d requests, want %d", len(reqs), len(tt.wantFields))
			}
			for i, r := range reqs {
				MustRequestLine(t, r, "GET", "/v21.0/"+providertest.PhoneID)
				if got := r.Query.Get("fields"); got != tt.wantFields[i] {
					t.Errorf("request %d fields = %q, want %q", i, got, tt.wantFields[i])
				}
			}
		})
	}
	t.Run("ErrInvalidToken", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.SetAccessToken("another token")
		_, err := c.PhoneNumberInfo(context.Background(), f.Account())
		var perr *provider.Error
		if !errors.As(err, &perr) || perr.Code != 190 || perr.Status != 401 {
			t.Fatalf("err = %v, want (#190)", err)
		}
		if n := len(f.Requests()); n != 1 {
			t.Errorf("%d requests, want 1: only unknown fields fall back", n)
		}
	})
	t.Run("ErrOtherParameterErrorNoFallback", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("GET /{id}", providertest.InvalidParameter("Object does not exist"))
		_, err := c.PhoneNumberInfo(context.Background(), f.Account())
		var perr *provider.Error
		if !errors.As(err, &perr) || perr.Code != 100 || len(f.Requests()) != 1 {
			t.Fatalf("err = %v after %d requests", err, len(f.Requests()))
		}
	})
}

func TestSubscribeApp(t *testing.T) {
	t.Run("SubscribeThenList", func(t *testing.T) {
		f, c, _ := newFake(t)
		ctx, acc := context.Background(), f.Account()
		apps, err := c.SubscribedApps(ctx, acc)
		if err != nil || len(apps) != 0 {
			t.Fatalf("before: apps = %v, err = %v", apps, err)
		}
		if err := c.SubscribeApp(ctx, acc); err != nil {
			t.Fatalf("SubscribeApp: %v", err)
		}
		reqs := f.Requests()
		MustRequestLine(t, reqs[1], "POST", "/v21.0/"+providertest.BusinessID+"/subscribed_apps")
		if len(reqs[1].Body) != 0 {
			t.Errorf("body = %q, want none", reqs[1].Body)
		}
		if !f.Subscribed(providertest.BusinessID) {
			t.Errorf("fake not subscribed")
		}
		apps, err = c.SubscribedApps(ctx, acc)
		if err != nil {
			t.Fatalf("SubscribedApps: %v", err)
		}
		MustRequestLine(t, f.Requests()[2], "GET", "/v21.0/"+providertest.BusinessID+"/subscribed_apps")
		want := provider.SubscribedApp{ID: providertest.AppID, Name: "Switchboard Test App",
			Link: "https://www.facebook.com/games/?app_id=" + providertest.AppID}
		if len(apps) != 1 || apps[0] != want {
			t.Errorf("apps = %+v, want [%+v]", apps, want)
		}
	})
	t.Run("ErrNoBusinessID", func(t *testing.T) {
		f, c, _ := newFake(t)
		acc := f.Account()
		acc.BusinessID = ""
		if err := c.SubscribeApp(context.Background(), acc); !errors.Is(err, provider.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	})
	t.Run("ErrPermission", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("POST /{waba}/subscribed_apps", providertest.GraphError(403, 200, "(#200) Permissions error", ""))
		err := c.SubscribeApp(context.Background(), f.Account())
		var perr *provider.Error
		if !errors.As(err, &perr) || perr.Code != 200 || provider.IsRetryable(err) {
			t.Fatalf("err = %v, want a final (#200)", err)
		}
	})
}
