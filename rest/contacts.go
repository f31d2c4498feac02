package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/contacts"
	"switchboard/ent"
	"switchboard/messaging"
)

// contactJSON is the spec's Contact.
type contactJSON struct {
	ID                 uuid.UUID      `json:"id"`
	PhoneNumber        string         `json:"phone_number" example:"15551234567"`
	Name               string         `json:"name" example:"Grace"`
	ProfileName        string         `json:"profile_name" example:"Grace H."`
	AvatarURL          string         `json:"avatar_url"`
	Status             string         `json:"status"`
	Tags               []string       `json:"tags" example:"[\"vip\"]"`
	Metadata           map[string]any `json:"metadata"`
	LastMessageAt      *time.Time     `json:"last_message_at"`
	LastMessagePreview string         `json:"last_message_preview"`
	UnreadCount        int            `json:"unread_count"`
	AssignedUserID     *uuid.UUID     `json:"assigned_user_id"`
	ChatAccount        string         `json:"chat_account"`
	LastInboundAt      *time.Time     `json:"last_inbound_at"`
	ServiceWindowOpen  bool           `json:"service_window_open"`
	MarketingOptOut    bool           `json:"marketing_opt_out"`
	CreatedAt          time.Time      `json:"created_at"`
	UpdatedAt          time.Time      `json:"updated_at"`
}

// presentContact renders a contact; now decides service_window_open.
func presentContact(c *ent.Contact, now time.Time) contactJSON {
	out := contactJSON{
		ID: c.ID, PhoneNumber: c.PhoneNumber, Name: c.Name, ProfileName: c.ProfileName,
		AvatarURL: c.AvatarURL, Status: c.Status, Tags: c.Tags, Metadata: c.Metadata,
		LastMessageAt: c.LastMessageAt, LastMessagePreview: c.LastMessagePreview,
		UnreadCount: c.UnreadCount, AssignedUserID: c.AssignedUserID, ChatAccount: c.ChatAccount,
		LastInboundAt: c.LastInboundAt, ServiceWindowOpen: messaging.ServiceWindowOpen(c, now),
		MarketingOptOut: c.MarketingOptOut, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	return out
}

// panelFieldJSON, panelSectionJSON and panelConfigJSON are the contact info
// panel's layout.
type panelFieldJSON struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Order int    `json:"order"`
}

type panelSectionJSON struct {
	ID               string           `json:"id"`
	Label            string           `json:"label"`
	Columns          int              `json:"columns"`
	Collapsible      bool             `json:"collapsible"`
	DefaultCollapsed bool             `json:"default_collapsed"`
	Order            int              `json:"order"`
	Fields           []panelFieldJSON `json:"fields"`
}

type panelConfigJSON struct {
	Sections []panelSectionJSON `json:"sections"`
}

// sessionDataJSON is the data of GET /api/contacts/{id}/session-data.
type sessionDataJSON struct {
	SessionID   *uuid.UUID      `json:"session_id"`
	FlowID      *uuid.UUID      `json:"flow_id"`
	FlowName    string          `json:"flow_name"`
	SessionData map[string]any  `json:"session_data"`
	PanelConfig panelConfigJSON `json:"panel_config"`
}

func presentSessionData(d *contacts.SessionData) sessionDataJSON {
	out := sessionDataJSON{SessionData: map[string]any{}, PanelConfig: panelConfigJSON{Sections: []panelSectionJSON{}}}
	if s := d.Session; s != nil {
		out.SessionID, out.FlowID = &s.ID, s.CurrentFlowID
		if s.Variables != nil {
			out.SessionData = s.Variables
		}
	}
	if d.Flow != nil {
		out.FlowName = d.Flow.Name
	}
	for _, s := range d.Panel.Sections {
		sec := panelSectionJSON{
			ID: s.ID, Label: s.Label, Columns: s.Columns, Collapsible: s.Collapsible,
			DefaultCollapsed: s.DefaultCollapsed, Order: s.Order, Fields: make([]panelFieldJSON, len(s.Fields)),
		}
		for i, f := range s.Fields {
			sec.Fields[i] = panelFieldJSON{Key: f.Key, Label: f.Label, Order: f.Order}
		}
		out.PanelConfig.Sections = append(out.PanelConfig.Sections, sec)
	}
	return out
}

// createContactBody is the JSON of POST /api/contacts.
type createContactBody struct {
	PhoneNumber *string        `json:"phone_number" required:"true" nullable:"false" minLength:"1" example:"15551234567" description:"7 to 15 digits; spaces, dashes, parentheses, dots and a leading + or 00 are dropped."`
	ProfileName *string        `json:"profile_name" maxLength:"255" example:"Grace H."`
	ChatAccount *string        `json:"chat_account" maxLength:"255" example:"Main" description:"The name of an account of the organization, or empty."`
	Tags        []string       `json:"tags" description:"Tag names of 1 to 64 characters; at most 50 once repeats are dropped."`
	Metadata    map[string]any `json:"metadata"`
}

// updateContactBody is the JSON of PUT /api/contacts/{id}: absent or null
// fields keep their value.
type updateContactBody struct {
	ProfileName        *string        `json:"profile_name" maxLength:"255"`
	ChatAccount        *string        `json:"chat_account" maxLength:"255" description:"The name of an account of the organization, or empty."`
	Tags               []string       `json:"tags" description:"Replaces the tags: names of 1 to 64 characters; at most 50 once repeats are dropped."`
	Metadata           map[string]any `json:"metadata"`
	AssignedUserID     *string        `json:"assigned_user_id" format:"uuid" description:"A member of the organization; not with clear_assigned_agent."`
	ClearAssignedAgent *bool          `json:"clear_assigned_agent"`
}

// nullableUUID is a JSON field that tells absent (Set false) from null
// (Set true, ID nil) and a UUID.
type nullableUUID struct {
	Set bool
	ID  *uuid.UUID
}

// UnmarshalJSON implements json.Unmarshaler; the decoder calls it only
// for fields that are present.
func (n *nullableUUID) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return apperr.Invalidf("user_id must be a UUID or null")
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return apperr.Invalidf("user_id must be a UUID or null")
	}
	n.ID = &id
	return nil
}

func (a *API) listContacts(c *gin.Context) (int, any, error) {
	p, q := pageOf(c), queryOf[contactsQuery](c)
	f := contacts.Filter{Search: q.Search}
	if q.Tags != "" {
		f.Tags = strings.Split(q.Tags, ",")
	}
	pg, err := a.R.Contacts.List(ctx(c), f, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	now := time.Now()
	out := make([]contactJSON, len(pg.Contacts))
	for i, ct := range pg.Contacts {
		out[i] = presentContact(ct, now)
	}
	return http.StatusOK, listPayload("contacts", out, pg.Total, p), nil
}

func (a *API) getContact(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	ct, err := a.R.Contacts.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentContact(ct, time.Now()), nil
}

func (a *API) createContact(c *gin.Context) (int, any, error) {
	var b createContactBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.PhoneNumber == nil {
		return 0, nil, apperr.Invalidf("phone_number is required")
	}
	ct, err := a.R.Contacts.Create(ctx(c), contacts.CreateInput{
		PhoneNumber: *b.PhoneNumber, ProfileName: b.ProfileName, ChatAccount: b.ChatAccount,
		Tags: b.Tags, Metadata: b.Metadata,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentContact(ct, time.Now()), nil
}

func (a *API) updateContact(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateContactBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in := contacts.UpdateInput{
		ProfileName: b.ProfileName, ChatAccount: b.ChatAccount, Tags: b.Tags, Metadata: b.Metadata,
		ClearAssignedAgent: b.ClearAssignedAgent != nil && *b.ClearAssignedAgent,
	}
	if b.AssignedUserID != nil {
		if in.AssignedUserID, err = optionalUUID("assigned_user_id", *b.AssignedUserID); err != nil {
			return 0, nil, err
		}
	}
	ct, err := a.R.Contacts.Update(ctx(c), id, in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentContact(ct, time.Now()), nil
}

func (a *API) deleteContact(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Contacts.Delete(ctx(c), id); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, nil, nil
}

// assignContactBody is the JSON body of assignContact.
type assignContactBody struct {
	UserID nullableUUID `json:"user_id" required:"true" description:"A member of the organization, or null to unassign."`
}

func (a *API) assignContact(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b assignContactBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if !b.UserID.Set {
		return 0, nil, apperr.Invalidf("user_id is required (a UUID, or null to unassign)")
	}
	ct, err := a.R.Contacts.Assign(ctx(c), id, b.UserID.ID)
	if err != nil {
		return 0, nil, err
	}
	msg := "Contact assigned"
	if ct.AssignedUserID == nil {
		msg = "Contact unassigned"
	}
	return http.StatusOK, assignedData{Message: msg, AssignedUserID: ct.AssignedUserID}, nil
}

func (a *API) contactSessionData(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	d, err := a.R.Contacts.SessionData(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentSessionData(d), nil
}

func (a *API) markContactRead(c *gin.Context) (int, any, error) {
	return idAction(a.R.Contacts.MarkRead, statusData{Status: "ok"})(c)
}

// contactRoutes: marking a conversation read is part of reading messages.
func (a *API) contactRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/contacts", Op: "contacts", Query: paged(20, contactsQuery{}), Out: list("contacts", contactJSON{}), Handle: a.listContacts},
		{Method: post, Path: "/api/contacts", Op: "createContact", Status: http.StatusCreated, In: createContactBody{}, Out: contactJSON{}, Handle: a.createContact},
		{Method: get, Path: "/api/contacts/:id", Op: "contact", Out: contactJSON{}, Handle: a.getContact},
		{Method: put, Path: "/api/contacts/:id", Op: "updateContact", In: updateContactBody{}, Out: contactJSON{}, Handle: a.updateContact},
		{Method: del, Path: "/api/contacts/:id", Op: "deleteContact", Out: noData{}, Handle: a.deleteContact},
		{Method: put, Path: "/api/contacts/:id/assign", Op: "assignContact", In: assignContactBody{}, Out: assignedData{}, Handle: a.assignContact},
		{Method: post, Path: "/api/contacts/:id/mark-read", Op: "markContactRead", Out: statusData{}, Handle: a.markContactRead},
		{Method: get, Path: "/api/contacts/:id/session-data", Op: "contactSessionData", Out: sessionDataJSON{}, Handle: a.contactSessionData},
	}
}
