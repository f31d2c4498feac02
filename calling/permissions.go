package calling

import (
	"context"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/callpermission"
	"switchboard/ent/contact"
	"switchboard/ent/viewer"
	"switchboard/messaging"
)

// PermissionRequestBody is the text of the call permission request; the
// platform adds its own allow/decline controls.
const PermissionRequestBody = "We would like to call you on WhatsApp. Do you allow us to call you?"

// PendingRequestTTL is how long a request waits for its answer: the
// platform limits requests per day, so a new one may be sent once the
// last is this old, and a pending request then reads expired.
const PendingRequestTTL = 24 * time.Hour

// PermissionNone is the status of a contact and account without any
// permission request, as the peer web UI reads it (no record).
const PermissionNone = "none"

// PermissionTemplate names the approved template a call permission
// request is sent as outside the contact's 24-hour customer service window,
// where the platform takes templates only: one with a call permission
// request component (the platform adds the allow/decline controls).
// TemplateID, or TemplateName approved in one language, picks it;
// TemplateParams fill its body variables as in a template send. Inside the
// window the interactive request goes instead.
type PermissionTemplate struct {
	TemplateID     *uuid.UUID
	TemplateName   string
	TemplateParams map[string]string
}

func (t PermissionTemplate) named() bool {
	return t.TemplateID != nil || strings.TrimSpace(t.TemplateName) != ""
}

// RequestCallPermission sends the contact a call permission request from
// chatAccount and records it pending: the interactive
// call_permission_request while the contact's 24-hour service window is
// open, else the named template. Refused while a request younger than
// PendingRequestTTL waits, or while the contact allows calls. Errors:
// invalid (account, a pending or accepted permission, a closed service
// window without a template, the template's parameters, a template not
// approved or of another account), not_found (contact, template).
func (s *Service) RequestCallPermission(ctx context.Context, contactID uuid.UUID, chatAccount string, tmpl PermissionTemplate) (*ent.CallPermission, error) {
	db := database.ClientFor(ctx, s.Client)
	account, err := s.checkAccount(ctx, db, chatAccount)
	if err != nil {
		return nil, err
	}
	// One request at a time per contact: the row lock serializes them.
	c, err := db.Contact.Query().Where(contact.ID(contactID), forUpdate).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	now := s.now()
	last, err := latestPermission(ctx, db, contactID, account)
	if err != nil {
		return nil, err
	}
	if err := mayRequest(last, now); err != nil {
		return nil, err
	}
	m, err := s.sendPermissionRequest(ctx, c, account, tmpl, now)
	if err != nil {
		return nil, err
	}
	p, err := db.CallPermission.Create().SetContactID(contactID).SetChatAccount(account).
		SetStatus(callpermission.StatusPending).SetRequestedAt(now.UTC()).
		SetExpiresAt(now.Add(PendingRequestTTL).UTC()).SetMessageID(m.ID).Save(ctx)
	return p, apperr.Wrap(err, "call permission")
}

// sendPermissionRequest sends the request the way the platform takes it
// at now: free-form inside the service window, a template outside it.
// Errors: invalid (no template named outside the window), and those of
// the send.
func (s *Service) sendPermissionRequest(ctx context.Context, c *ent.Contact, account string, tmpl PermissionTemplate, now time.Time) (*ent.Message, error) {
	if messaging.ServiceWindowOpen(c, now) {
		return s.Messaging.SendCallPermissionRequest(ctx, c.ID, account, PermissionRequestBody)
	}
	if !tmpl.named() {
		return nil, apperr.Invalidf("the contact's 24-hour customer service window is closed (no message from them in the last 24 hours): " +
			"outside it the platform takes a call permission request only as a template; give template_name or template_id " +
			"of an approved template of the account with a call permission request component")
	}
	return s.Messaging.SendTemplate(ctx, messaging.TemplateInput{
		ContactID: &c.ID, TemplateID: tmpl.TemplateID, TemplateName: tmpl.TemplateName, TemplateParams: tmpl.TemplateParams,
		Account: account,
	})
}

// mayRequest refuses a new request while the last one is pending and
// young, or accepted and unexpired. Errors: invalid.
func mayRequest(last *ent.CallPermission, now time.Time) error {
	if last == nil {
		return nil
	}
	switch EffectiveStatus(last, now) {
	case string(callpermission.StatusPending):
		return apperr.Invalidf("a call permission request sent at %s is still waiting for the contact's answer; a new one may be sent after %s",
			last.RequestedAt.UTC().Format(time.RFC3339), last.RequestedAt.Add(PendingRequestTTL).UTC().Format(time.RFC3339))
	case string(callpermission.StatusAccepted):
		if last.ExpiresAt == nil {
			return apperr.Invalidf("the contact already allows calls from this account")
		}
		return apperr.Invalidf("the contact already allows calls from this account until %s", last.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// CallPermissionStatus returns the status of the contact's latest
// permission for chatAccount: pending, accepted, declined, expired (an
// accepted or pending one past its expiry), or PermissionNone when no
// request was ever made. Errors: invalid (account), not_found (contact).
func (s *Service) CallPermissionStatus(ctx context.Context, contactID uuid.UUID, chatAccount string) (string, error) {
	db := database.ClientFor(ctx, s.Client)
	account, err := s.checkAccount(ctx, db, chatAccount)
	if err != nil {
		return "", err
	}
	if _, err := db.Contact.Get(ctx, contactID); err != nil {
		return "", apperr.Wrap(err, "contact")
	}
	last, err := latestPermission(ctx, db, contactID, account)
	if err != nil || last == nil {
		return PermissionNone, err
	}
	return EffectiveStatus(last, s.now()), nil
}

// EffectiveStatus is a permission's status at now: a pending or accepted
// one past its expiry is expired.
func EffectiveStatus(p *ent.CallPermission, now time.Time) string {
	switch p.Status {
	case callpermission.StatusPending, callpermission.StatusAccepted:
		if p.ExpiresAt != nil && !now.Before(*p.ExpiresAt) {
			return string(callpermission.StatusExpired)
		}
	}
	return string(p.Status)
}

// ApplyPermissionReply records a contact's answer to a call permission
// request (the platform's call_permission_reply, from the inbound
// webhook): the latest pending or accepted permission of the contact
// (by phone number) and account becomes accepted, until expiresAt or
// without expiry when permanent, or declined. A repeated reply changes
// nothing more. A reply without a recorded request (asked from another
// system) is recorded as a new permission. Errors: not_found (no contact
// with that phone number in the organization).
func (s *Service) ApplyPermissionReply(ctx context.Context, orgID uuid.UUID, account, contactPhone string, accepted, permanent bool, expiresAt *time.Time) error {
	ctx = viewer.SystemContext(ctx, orgID)
	phone, err := messaging.NormalizePhone(contactPhone)
	if err != nil {
		return err
	}
	db := database.ClientFor(ctx, s.Client)
	c, err := db.Contact.Query().Where(contact.PhoneNumber(phone), forUpdate).Only(ctx)
	if err != nil {
		return apperr.Wrap(err, "contact")
	}
	status, expiry := callpermission.StatusDeclined, (*time.Time)(nil)
	if accepted {
		status = callpermission.StatusAccepted
		if !permanent && expiresAt != nil {
			t := expiresAt.UTC()
			expiry = &t
		}
	}
	now := s.now().UTC()
	p, err := db.CallPermission.Query().
		Where(callpermission.ContactID(c.ID), callpermission.ChatAccount(account),
			callpermission.StatusIn(callpermission.StatusPending, callpermission.StatusAccepted)).
		Order(ent.Desc(callpermission.FieldRequestedAt), ent.Desc(callpermission.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		_, err = db.CallPermission.Create().SetContactID(c.ID).SetChatAccount(account).SetStatus(status).
			SetRequestedAt(now).SetRespondedAt(now).SetNillableExpiresAt(expiry).Save(ctx)
		return apperr.Wrap(err, "call permission")
	}
	if err != nil {
		return apperr.Wrap(err, "call permission")
	}
	if p.Status == status && sameTime(p.ExpiresAt, expiry) {
		return nil
	}
	u := p.Update().SetStatus(status).SetRespondedAt(now)
	if expiry != nil {
		u.SetExpiresAt(*expiry)
	} else {
		u.ClearExpiresAt()
	}
	return apperr.Wrap(u.Exec(ctx), "call permission")
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// latestPermission is the contact's most recent permission for account,
// or nil.
func latestPermission(ctx context.Context, db *ent.Client, contactID uuid.UUID, account string) (*ent.CallPermission, error) {
	p, err := db.CallPermission.Query().
		Where(callpermission.ContactID(contactID), callpermission.ChatAccount(account)).
		Order(ent.Desc(callpermission.FieldRequestedAt), ent.Desc(callpermission.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return p, apperr.Wrap(err, "call permission")
}

// forUpdate locks the rows a query reads on PostgreSQL (SQLite has one
// writer, so its transaction already serializes the work).
func forUpdate(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.ForUpdate()
	}
}
