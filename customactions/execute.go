package customactions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/customaction"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/netguard"
)

// userAgent identifies custom action webhook calls to receivers.
const userAgent = "Switchboard-CustomActions/1.0"

// Toast is a short notice the client shows after an action.
type Toast struct {
	Message string `json:"message"`
	// Type is success or error.
	Type string `json:"type"`
}

// Result is what executing an action answers; which fields are set
// depends on the action type (webhook: Data and Toast; url: RedirectURL;
// javascript: Data as a Script and Toast).
type Result struct {
	Success     bool
	Message     string
	Data        any
	Toast       *Toast
	RedirectURL string
}

// Script is a javascript action's answer: the code and the values it may
// use. The client runs it; the server never does.
type Script struct {
	Code    string        `json:"code"`
	Context ScriptContext `json:"context"`
}

// ScriptContext are the contact, user and organization an action runs
// for.
type ScriptContext struct {
	Contact      map[string]string `json:"contact"`
	User         map[string]string `json:"user"`
	Organization map[string]string `json:"organization"`
}

// Execute runs the action for a contact on behalf of the viewer:
//   - webhook: renders the URL (values percent-encoded) and body template
//     (values JSON-escaped) and calls it through the outbound guard
//     (private addresses refused, 15 s timeout, 1 MiB answer); a failed
//     call is a Result with Success false and an error toast, not an error;
//   - url: renders the URL and returns the path of a single-use redirect
//     token valid RedirectTokenTTL;
//   - javascript: returns the code and its context for the client.
//
// Errors: not_found (the action or the contact), invalid (an inactive
// action; a rendered URL that is not an http(s) URL).
func (s *Service) Execute(ctx context.Context, id, contactID uuid.UUID) (*Result, error) {
	db := database.ClientFor(ctx, s.Client)
	// The call sends the header values a viewer without settings:update
	// may not read (they stay on the server).
	a, err := db.CustomAction.Get(rule.RevealHeaders(ctx, "executing a custom action sends its headers"), id)
	if err != nil {
		return nil, apperr.Wrap(err, "custom action")
	}
	if !a.IsActive {
		return nil, apperr.Invalidf("the custom action is not active")
	}
	c, err := db.Contact.Get(ctx, contactID)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	sc, err := s.scriptContext(ctx, db, c)
	if err != nil {
		return nil, err
	}
	vars := Variables{}
	for prefix, m := range map[string]map[string]string{"contact": sc.Contact, "user": sc.User, "organization": sc.Organization} {
		for k, v := range m {
			vars[prefix+"."+k] = v
		}
	}
	switch a.ActionType {
	case customaction.ActionTypeWebhook:
		return s.callWebhook(ctx, a, vars), nil
	case customaction.ActionTypeURL:
		target, err := RenderURL(str(a.Config["url"]), vars)
		if err != nil {
			return nil, apperr.Invalidf("the action's URL cannot carry the contact's values: %s", err.Error())
		}
		if err := plainURL(target); err != nil {
			return nil, apperr.Invalidf("the action's URL is not valid once rendered: %s", err.Error())
		}
		token, err := s.IssueRedirect(ctx, target)
		if err != nil {
			return nil, err
		}
		return &Result{Success: true, Message: "Redirect ready", RedirectURL: RedirectPath + token}, nil
	case customaction.ActionTypeJavascript:
		return &Result{
			Success: true, Message: "Script ready",
			Data:  Script{Code: str(a.Config["code"]), Context: sc},
			Toast: &Toast{Message: a.Name, Type: "success"},
		}, nil
	}
	return nil, apperr.New(apperr.Internal, "custom action %s has an unknown type", a.ID)
}

// scriptContext gathers the template values: the contact's, the viewer's
// (for an API key, its creator's) and the organization's.
func (s *Service) scriptContext(ctx context.Context, db *ent.Client, c *ent.Contact) (ScriptContext, error) {
	v := viewer.FromContext(ctx)
	sc := ScriptContext{
		Contact: map[string]string{
			"id": c.ID.String(), "phone_number": c.PhoneNumber, "name": c.Name, "profile_name": c.ProfileName,
		},
		User:         map[string]string{"id": "", "name": "", "email": "", "role": ""},
		Organization: map[string]string{"id": c.OrganizationID.String(), "name": ""},
	}
	if v != nil && v.UserID != uuid.Nil {
		sc.User["id"] = v.UserID.String()
		sc.User["role"] = v.RoleName
		if u, err := db.User.Get(ctx, v.UserID); err == nil {
			sc.User["name"], sc.User["email"] = u.FullName, u.Email
		} else if !ent.IsNotFound(err) {
			return sc, apperr.Wrap(err, "user")
		}
	}
	o, err := db.Organization.Get(ctx, c.OrganizationID)
	if err != nil {
		return sc, apperr.Wrap(err, "organization")
	}
	sc.Organization["name"] = o.Name
	return sc, nil
}

// callWebhook makes the webhook call and reports its outcome.
func (s *Service) callWebhook(ctx context.Context, a *ent.CustomAction, vars Variables) *Result {
	fail := func(msg string) *Result {
		return &Result{Success: false, Message: msg, Toast: &Toast{Message: msg, Type: "error"}}
	}
	target, err := RenderURL(str(a.Config["url"]), vars)
	if err != nil {
		return fail("Webhook failed: the URL cannot carry the contact's values")
	}
	if err := netguard.ValidateURL(target, s.AllowPrivate); err != nil {
		return fail("Webhook failed: " + netguard.PublicMessage(err))
	}
	method := str(a.Config["method"])
	if method == "" {
		method = DefaultMethod
	}
	var body io.Reader
	tmpl := str(a.Config["body"])
	if tmpl != "" && method != http.MethodGet {
		rendered, err := RenderJSON(tmpl, vars)
		if err != nil {
			return fail("Webhook failed: the body cannot carry the contact's values")
		}
		body = strings.NewReader(rendered)
	}
	ctx, cancel := context.WithTimeout(ctx, WebhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return fail("Webhook failed: the URL is not valid")
	}
	if hs, ok := a.Config["headers"].(map[string]any); ok {
		for k, v := range hs {
			req.Header.Set(k, str(v))
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := s.HTTP.Do(req)
	if err != nil {
		return fail("Webhook failed: " + netguard.PublicMessage(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return fail("Webhook failed: " + netguard.PublicMessage(err))
	}
	if len(raw) > MaxResponseBytes {
		return fail("Webhook failed: the response is too large")
	}
	data := responseData(raw)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		r := fail(fmt.Sprintf("Webhook returned HTTP %d", resp.StatusCode))
		r.Data = data
		return r
	}
	msg := a.Name + " done"
	return &Result{Success: true, Message: "Webhook executed successfully", Data: data, Toast: &Toast{Message: msg, Type: "success"}}
}

// responseData is a webhook's answer: its JSON value when it is JSON, its
// text otherwise (nil when empty).
func responseData(raw []byte) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		return v
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
