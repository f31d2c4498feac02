package provider

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// PhoneNumber is the status of a business phone number, as the account
// credential test shows it.
type PhoneNumber struct {
	ID                     string
	DisplayPhoneNumber     string
	VerifiedName           string
	QualityRating          string // GREEN, YELLOW, RED, UNKNOWN
	MessagingLimitTier     string // such as TIER_1K; see PhoneNumberInfo
	CodeVerificationStatus string // VERIFIED, NOT_VERIFIED, EXPIRED
	AccountMode            string // LIVE or SANDBOX
	ThroughputLevel        string // throughput.level: STANDARD, HIGH
	// IsTestNumber is true for the platform's test numbers, which run in
	// account mode SANDBOX.
	IsTestNumber bool
}

// phoneFieldSets are tried in order. The messaging limit moved from the
// per-number messaging_limit_tier (deprecated) to the portfolio-level
// whatsapp_business_manager_messaging_limit; an API version that does not
// know a requested field answers (#100), so the call falls back to fewer
// fields rather than failing the credential test.
var phoneFieldSets = []string{
	"id,display_phone_number,verified_name,quality_rating,code_verification_status,account_mode,throughput,messaging_limit_tier,whatsapp_business_manager_messaging_limit",
	"id,display_phone_number,verified_name,quality_rating,code_verification_status,account_mode,throughput,messaging_limit_tier",
	"id,display_phone_number,verified_name,quality_rating,code_verification_status,account_mode,throughput",
}

// PhoneNumberInfo returns the status of acc's phone number
// (GET /{phone_id}?fields=...). MessagingLimitTier is
// whatsapp_business_manager_messaging_limit when the platform returns it,
// else messaging_limit_tier, else throughput.level. It is the call that
// verifies an account's credentials.
//
// Errors: ErrInvalid for a missing phone id; *Error for a Graph error answer
// (code 190 or 0: the token is invalid or expired; 100: unknown phone id or
// no permission); a transport error otherwise.
func (c *Client) PhoneNumberInfo(ctx context.Context, acc Account) (*PhoneNumber, error) {
	var a struct {
		ID                     string `json:"id"`
		DisplayPhoneNumber     string `json:"display_phone_number"`
		VerifiedName           string `json:"verified_name"`
		QualityRating          string `json:"quality_rating"`
		CodeVerificationStatus string `json:"code_verification_status"`
		AccountMode            string `json:"account_mode"`
		MessagingLimitTier     string `json:"messaging_limit_tier"`
		ManagerMessagingLimit  string `json:"whatsapp_business_manager_messaging_limit"`
		Throughput             struct {
			Level string `json:"level"`
		} `json:"throughput"`
	}
	var err error
	for i, fields := range phoneFieldSets {
		var u *url.URL
		u, err = c.endpoint(acc, url.Values{"fields": {fields}}, acc.PhoneID)
		if err != nil {
			return nil, err
		}
		err = c.doJSON(ctx, acc, getRequest(u), &a)
		var perr *Error
		if err == nil || i == len(phoneFieldSets)-1 || !errors.As(err, &perr) || !unknownField(perr) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	p := &PhoneNumber{
		ID:                     a.ID,
		DisplayPhoneNumber:     a.DisplayPhoneNumber,
		VerifiedName:           a.VerifiedName,
		QualityRating:          a.QualityRating,
		CodeVerificationStatus: a.CodeVerificationStatus,
		AccountMode:            a.AccountMode,
		ThroughputLevel:        a.Throughput.Level,
		IsTestNumber:           strings.EqualFold(a.AccountMode, "SANDBOX"),
	}
	switch {
	case a.ManagerMessagingLimit != "":
		p.MessagingLimitTier = a.ManagerMessagingLimit
	case a.MessagingLimitTier != "":
		p.MessagingLimitTier = a.MessagingLimitTier
	default:
		p.MessagingLimitTier = a.Throughput.Level
	}
	return p, nil
}

// unknownField reports the Graph answer to a fields list naming a field the
// API version does not have: (#100) "Tried accessing nonexisting field".
func unknownField(e *Error) bool {
	return e.Code == 100 && strings.Contains(strings.ToLower(e.Message), "nonexisting field")
}

// SubscribeApp subscribes the app that owns acc's token to the webhooks of
// acc's WhatsApp Business Account (POST /{business_id}/subscribed_apps).
// Subscribing again is harmless.
//
// Errors: ErrInvalid for a missing business id; *Error for a Graph error
// answer; ErrUnexpectedResponse when success is not true; a transport error
// otherwise.
func (c *Client) SubscribeApp(ctx context.Context, acc Account) error {
	u, err := c.endpoint(acc, nil, acc.BusinessID, "subscribed_apps")
	if err != nil {
		return err
	}
	r := &request{method: http.MethodPost, url: u, idempotent: true}
	return c.doSuccess(ctx, acc, r)
}

// SubscribedApp is an app receiving the webhooks of a business account.
type SubscribedApp struct {
	ID   string
	Name string
	Link string
}

// SubscribedApps lists the apps subscribed to acc's business account
// (GET /{business_id}/subscribed_apps).
//
// Errors: ErrInvalid for a missing business id; *Error for a Graph error
// answer; a transport error otherwise.
func (c *Client) SubscribedApps(ctx context.Context, acc Account) ([]SubscribedApp, error) {
	u, err := c.endpoint(acc, nil, acc.BusinessID, "subscribed_apps")
	if err != nil {
		return nil, err
	}
	var a struct {
		Data []struct {
			App struct {
				ID   string `json:"id"`
				Name string `json:"name"`
				Link string `json:"link"`
			} `json:"whatsapp_business_api_data"`
		} `json:"data"`
	}
	r := getRequest(u)
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	apps := make([]SubscribedApp, 0, len(a.Data))
	for _, d := range a.Data {
		apps = append(apps, SubscribedApp{ID: d.App.ID, Name: d.App.Name, Link: d.App.Link})
	}
	return apps, nil
}
