package main

import (
	"context"
	"fmt"
	"net/http"

	"switchboard/bench/internal/benchkit"
	"switchboard/internal/apiclient"
)

// api is a node's REST API as the admin sees it (apiclient.Client).
type api struct{ *apiclient.Client }

// login signs in as the admin on the node at base.
func login(ctx context.Context, base, email, password string) (*api, error) {
	a, err := apiclient.Login(ctx, base, email, password)
	if err != nil {
		return nil, err
	}
	return &api{a}, nil
}

// account is the run's account on the fake platform.
type account struct {
	ID, Name, PhoneID, BusinessID, Secret string
}

// createAccount creates an account with a phone number id, business id
// and app secret unique to the run, and tests it, which stores the
// messaging limit tier the fake reports.
func (a *api) createAccount(ctx context.Context, runID string) (*account, error) {
	acc := &account{Name: "bench-campaign-" + runID, PhoneID: benchkit.RandomDigits(15), BusinessID: benchkit.RandomDigits(15),
		Secret: "bench-secret-" + runID + "-" + benchkit.RandomHex(8)}
	var out struct {
		ID string `json:"id"`
	}
	err := a.Call(ctx, http.MethodPost, "/api/accounts", map[string]any{
		"name": acc.Name, "phone_id": acc.PhoneID, "business_id": acc.BusinessID,
		"access_token": "bench-token-" + runID, "app_secret": acc.Secret,
	}, http.StatusCreated, &out)
	if err != nil {
		return nil, fmt.Errorf("creating the account: %w", err)
	}
	acc.ID = out.ID
	var ph struct {
		MessagingLimitTier string `json:"messaging_limit_tier"`
	}
	if err := a.Call(ctx, http.MethodPost, "/api/accounts/"+acc.ID+"/test", nil, http.StatusOK, &ph); err != nil {
		return nil, fmt.Errorf("testing the account against the fake (is PROVIDER_BASE_URL the fake's address?): %w", err)
	}
	logf("account %s (phone_id %s): the platform reports %s", acc.Name, acc.PhoneID, ph.MessagingLimitTier)
	return acc, nil
}

// syncTemplate syncs the account's templates from the fake (which holds
// one APPROVED template named name) and returns the template's id.
func (a *api) syncTemplate(ctx context.Context, acc *account, name string) (string, error) {
	if err := a.Call(ctx, http.MethodPost, "/api/templates/sync", map[string]string{"chat_account": acc.Name}, http.StatusOK, nil); err != nil {
		return "", fmt.Errorf("syncing templates: %w", err)
	}
	var list struct {
		Templates []struct {
			ID     string `json:"id"`
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"templates"`
	}
	if err := a.Call(ctx, http.MethodGet, "/api/templates?account="+acc.Name+"&limit=100", nil, http.StatusOK, &list); err != nil {
		return "", err
	}
	for _, t := range list.Templates {
		if t.Name == name {
			if t.Status != "APPROVED" {
				return "", fmt.Errorf("template %s synced as %s, want APPROVED", name, t.Status)
			}
			return t.ID, nil
		}
	}
	return "", fmt.Errorf("template %s not found after sync (%d templates)", name, len(list.Templates))
}

// createCampaign creates a draft campaign and imports n recipients
// numbered from first, in calls of at most 50,000.
func (a *api) createCampaign(ctx context.Context, acc *account, tplID, name, prefix string, first, n int) (string, error) {
	var c struct {
		ID string `json:"id"`
	}
	if err := a.Call(ctx, http.MethodPost, "/api/campaigns", map[string]any{
		"name": name, "chat_account": acc.Name, "template_id": tplID,
	}, http.StatusCreated, &c); err != nil {
		return "", fmt.Errorf("creating the campaign: %w", err)
	}
	for from := 0; from < n; from += 50_000 {
		rows := make([]map[string]any, 0, min(50_000, n-from))
		for i := from; i < n && i < from+50_000; i++ {
			rows = append(rows, map[string]any{
				"phone_number": fmt.Sprintf("+%s%07d", prefix, first+i), "recipient_name": fmt.Sprint("R", first+i),
				"template_params": map[string]any{"1": "Ann", "2": "10%"},
			})
		}
		var res struct {
			Imported   int `json:"imported"`
			Duplicates int `json:"duplicates"`
			Invalid    int `json:"invalid"`
		}
		if err := a.Call(ctx, http.MethodPost, "/api/campaigns/"+c.ID+"/recipients/import",
			map[string]any{"recipients": rows}, http.StatusOK, &res); err != nil {
			return "", fmt.Errorf("importing recipients: %w", err)
		}
		if res.Invalid > 0 || res.Duplicates > 0 {
			return "", fmt.Errorf("import: %d invalid, %d duplicates", res.Invalid, res.Duplicates)
		}
	}
	return c.ID, nil
}

func (a *api) campaignAction(ctx context.Context, id, action string) error {
	return a.Call(ctx, http.MethodPost, "/api/campaigns/"+id+"/"+action, nil, http.StatusOK, nil)
}

// campaignState is the fields of a campaign the tool reads.
type campaignState struct {
	Status          string `json:"status"`
	TotalRecipients int    `json:"total_recipients"`
	SentCount       int    `json:"sent_count"`
	FailedCount     int    `json:"failed_count"`
	ErrorMessage    string `json:"error_message"`
}

func (a *api) campaign(ctx context.Context, id string) (*campaignState, error) {
	var c campaignState
	return &c, a.Call(ctx, http.MethodGet, "/api/campaigns/"+id, nil, http.StatusOK, &c)
}
