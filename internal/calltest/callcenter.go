package calltest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"switchboard/calling/media/mediatest"
	"switchboard/internal/apiclient"
	"switchboard/provider/providertest"
)

// Account is the name of the platform account calls ring on.
const Account = "Main"

// CallCenter is an organization set up to take calls on the platform
// fake's phone number: calling on, hold music, a team with one agent.
type CallCenter struct {
	Admin, Agent *apiclient.Client
	TeamID       string
}

// SetUp signs in as the bootstrap admin and sets up the organization
// through the REST API: the account (with the platform's ids and
// appSecret, business calling on), calling on with a transfer timeout of
// 60 s, the hold music and a team "Support" whose one member is an agent.
func SetUp(ctx context.Context, base, adminEmail, adminPassword, appSecret string) (*CallCenter, error) {
	admin, err := apiclient.Login(ctx, base, adminEmail, adminPassword)
	if err != nil {
		return nil, err
	}
	cc := &CallCenter{Admin: admin}
	steps := []func(context.Context) error{
		func(ctx context.Context) error {
			return admin.Call(ctx, http.MethodPost, "/api/accounts", map[string]any{
				"name": Account, "phone_id": providertest.PhoneID, "business_id": providertest.BusinessID,
				"app_id": providertest.AppID, "access_token": providertest.AccessToken, "app_secret": appSecret,
				"business_calling_enabled": true,
			}, http.StatusCreated, nil)
		},
		func(ctx context.Context) error {
			return admin.Call(ctx, http.MethodPut, "/api/org/settings",
				map[string]any{"calling_enabled": true, "transfer_timeout_secs": 60}, http.StatusOK, nil)
		},
		func(ctx context.Context) error {
			return admin.Upload(ctx, "/api/org/audio?type=hold_music", "hold.ogg", mediatest.ToneOgg, nil)
		},
		cc.addAgent(adminPassword),
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, fmt.Errorf("setting up calls: %w", err)
		}
	}
	return cc, nil
}

// addAgent creates the team, an Agent member in it, and signs them in.
func (cc *CallCenter) addAgent(password string) func(context.Context) error {
	return func(ctx context.Context) error {
		var team struct {
			Team struct {
				ID string `json:"id"`
			} `json:"team"`
		}
		if err := cc.Admin.Call(ctx, http.MethodPost, "/api/teams", map[string]any{"name": "Support"}, http.StatusCreated, &team); err != nil {
			return err
		}
		cc.TeamID = team.Team.ID
		var roles struct {
			Roles []struct{ ID, Name string } `json:"roles"`
		}
		if err := cc.Admin.Call(ctx, http.MethodGet, "/api/roles", nil, http.StatusOK, &roles); err != nil {
			return err
		}
		roleID := ""
		for _, r := range roles.Roles {
			if r.Name == "Agent" {
				roleID = r.ID
			}
		}
		const email = "agent@example.com"
		var user struct {
			ID string `json:"id"`
		}
		if err := cc.Admin.Call(ctx, http.MethodPost, "/api/users", map[string]any{
			"email": email, "full_name": "Agent", "password": password, "role_id": roleID,
		}, http.StatusCreated, &user); err != nil {
			return err
		}
		if err := cc.Admin.Call(ctx, http.MethodPost, "/api/teams/"+cc.TeamID+"/members",
			map[string]any{"user_id": user.ID}, http.StatusCreated, nil); err != nil {
			return err
		}
		agent, err := apiclient.Login(ctx, cc.Admin.Base, email, password)
		cc.Agent = agent
		return err
	}
}

// AddIVR uploads the tone as the prompt and makes the account's call-start
// IVR flow: a greeting, then a menu whose 1 transfers to the team and
// whose 2 hangs up.
func (cc *CallCenter) AddIVR(ctx context.Context) error {
	var prompt struct {
		Filename string `json:"filename"`
	}
	if err := cc.Admin.Upload(ctx, "/api/ivr-flows/audio", "prompt.ogg", mediatest.ToneOgg, &prompt); err != nil {
		return err
	}
	play := map[string]any{"audio_file": prompt.Filename}
	menu := map[string]any{
		"version": 2, "entry_node": "hello",
		"nodes": []any{
			map[string]any{"id": "hello", "type": "greeting", "label": "Hello", "config": play},
			map[string]any{"id": "choose", "type": "menu", "label": "Choose", "config": map[string]any{
				"audio_file": prompt.Filename, "timeout_seconds": 20,
				"options": map[string]any{"1": map[string]any{"label": "Support"}, "2": map[string]any{"label": "Goodbye"}}}},
			map[string]any{"id": "support", "type": "transfer", "label": "Support", "config": map[string]any{"team_id": cc.TeamID}},
			map[string]any{"id": "bye", "type": "hangup", "label": "Goodbye"},
		},
		"edges": []any{
			map[string]any{"from": "hello", "to": "choose", "condition": "default"},
			map[string]any{"from": "choose", "to": "support", "condition": "digit:1"},
			map[string]any{"from": "choose", "to": "bye", "condition": "digit:2"},
		},
	}
	return cc.Admin.Call(ctx, http.MethodPost, "/api/ivr-flows", map[string]any{
		"chat_account": Account, "name": "Main menu", "is_active": true, "is_call_start": true, "menu": menu,
	}, http.StatusCreated, nil)
}

// CallLog is the part of a call log the tests read.
type CallLog struct {
	ID, ChatCallID, Status, DisconnectedBy string
	RecordingDuration                      int `json:"recording_duration"`
}

// CallLog finds the call log of the platform's call id.
func (cc *CallCenter) CallLog(ctx context.Context, callID string) (*CallLog, error) {
	var page struct {
		CallLogs []struct {
			ID                string `json:"id"`
			ChatCallID        string `json:"chat_call_id"`
			Status            string `json:"status"`
			DisconnectedBy    string `json:"disconnected_by"`
			RecordingDuration int    `json:"recording_duration"`
		} `json:"call_logs"`
	}
	if err := cc.Admin.Call(ctx, http.MethodGet, "/api/call-logs?limit=100", nil, http.StatusOK, &page); err != nil {
		return nil, err
	}
	for _, l := range page.CallLogs {
		if l.ChatCallID == callID {
			return &CallLog{ID: l.ID, ChatCallID: l.ChatCallID, Status: l.Status, DisconnectedBy: l.DisconnectedBy,
				RecordingDuration: l.RecordingDuration}, nil
		}
	}
	return nil, fmt.Errorf("no call log for call %s", callID)
}

// WaitingTransfers returns the waiting transfers the agent sees (at most
// 100), by the platform's call id.
func (cc *CallCenter) WaitingTransfers(ctx context.Context) (map[string]string, error) {
	var page struct {
		Transfers []struct {
			ID         string `json:"id"`
			ChatCallID string `json:"chat_call_id"`
		} `json:"call_transfers"`
	}
	q := url.Values{"status": {"waiting"}, "limit": {"100"}}
	if err := cc.Agent.Call(ctx, http.MethodGet, "/api/call-transfers?"+q.Encode(), nil, http.StatusOK, &page); err != nil {
		return nil, err
	}
	byCall := make(map[string]string, len(page.Transfers))
	for _, t := range page.Transfers {
		byCall[t.ChatCallID] = t.ID
	}
	return byCall, nil
}

// Take answers a waiting transfer from the agent's browser peer: it reads
// the ICE servers, posts the peer's offer to connect, and applies the
// server's answer.
func (cc *CallCenter) Take(ctx context.Context, transferID string, agent *mediatest.Peer) error {
	var ice struct {
		ICEServers []struct {
			URLs []string `json:"urls"`
		} `json:"ice_servers"`
	}
	if err := cc.Agent.Call(ctx, http.MethodGet, "/api/calls/ice-servers", nil, http.StatusOK, &ice); err != nil {
		return err
	}
	offer, err := agent.CreateOffer()
	if err != nil {
		return err
	}
	var answer struct {
		SDPAnswer string `json:"sdp_answer"`
	}
	if err := cc.Agent.Call(ctx, http.MethodPost, "/api/call-transfers/"+transferID+"/connect",
		map[string]any{"sdp_offer": offer}, http.StatusOK, &answer); err != nil {
		return err
	}
	return agent.ApplyAnswer(answer.SDPAnswer)
}
