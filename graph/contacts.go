package graph

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/chatbotflow"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/organizationmember"
	"switchboard/ent/predicate"
	"switchboard/events"
	"switchboard/messaging"
	tagspkg "switchboard/tags"
)

// Limits of a contact's fields.
const (
	minPhoneDigits  = messaging.MinPhoneDigits
	maxPhoneDigits  = messaging.MaxPhoneDigits
	maxContactTags  = 50
	maxContactField = 255
)

// errDuplicatePhone is the answer to a second contact with the same number.
const errDuplicatePhone = "a contact with this phone number already exists"

// ServiceWindowOpen reports whether the contact wrote within the last 24
// hours at now, so that free-form (non-template) messages may be sent. The
// rule lives in messaging, which the send path shares with workers.
func ServiceWindowOpen(c *ent.Contact, now time.Time) bool {
	return messaging.ServiceWindowOpen(c, now)
}

// NormalizePhone returns phone in E.164 digits (see
// messaging.NormalizePhone). Errors: invalid.
func NormalizePhone(phone string) (string, error) { return messaging.NormalizePhone(phone) }

// ContactFilter selects contacts of a list.
type ContactFilter struct {
	// Search matches profile_name or name (case-insensitive), or the
	// phone number containing the digits of Search.
	Search string
	// Tags matches contacts holding at least one of them.
	Tags []string
}

// CreateContactInput is a new contact. Nil fields take their defaults.
type CreateContactInput struct {
	PhoneNumber string
	ProfileName *string
	ChatAccount *string
	Tags        []string
	Metadata    map[string]any
}

// UpdateContactInput changes the non-nil fields of a contact. Tags and
// Metadata replace the stored values when not nil.
type UpdateContactInput struct {
	ProfileName    *string
	ChatAccount    *string
	Tags           []string
	Metadata       map[string]any
	AssignedUserID *uuid.UUID
	// ClearAssignedAgent unassigns the contact.
	ClearAssignedAgent bool
}

// ContactPage is one page of contacts with the total of the filter.
type ContactPage struct {
	Contacts []*ent.Contact
	Total    int
}

// ContactsQuery returns the contacts of the viewer's organization matching
// f. Errors: invalid (a NUL character in the filter).
func (r *Resolver) ContactsQuery(ctx context.Context, f ContactFilter) (*ent.ContactQuery, error) {
	if err := filterText("search", f.Search); err != nil {
		return nil, err
	}
	for _, t := range f.Tags {
		if err := filterText("tags", t); err != nil {
			return nil, err
		}
	}
	q := r.db(ctx).Contact.Query()
	if s := strings.TrimSpace(f.Search); s != "" {
		preds := []predicate.Contact{contact.ProfileNameContainsFold(s), contact.NameContainsFold(s)}
		if digits := onlyDigits(s); digits != "" {
			preds = append(preds, contact.PhoneNumberContains(digits))
		}
		q = q.Where(contact.Or(preds...))
	}
	var tags []predicate.Contact
	for _, t := range f.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, tagspkg.HasTag(t))
		}
	}
	if len(tags) > 0 {
		q = q.Where(contact.Or(tags...))
	}
	return q, nil
}

func onlyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// ListContacts returns a page of ContactsQuery, the most recent
// conversations first (contacts without messages last, newest first), with
// the total from a window count. Errors: invalid (a NUL character in the
// filter).
func (r *Resolver) ListContacts(ctx context.Context, f ContactFilter, offset, limit int) (*ContactPage, error) {
	q, err := r.ContactsQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	cs, err := q.Clone().
		Modify(withTotal).
		Order(contact.ByLastMessageAt(sql.OrderDesc(), sql.OrderNullsLast()),
			contact.ByCreatedAt(sql.OrderDesc()), contact.ByID()).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	page := &ContactPage{Contacts: cs}
	if page.Total, err = pageTotal(cs, offset, func() (int, error) { return q.Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	return page, nil
}

// GetContact returns a contact. Errors: not_found.
func (r *Resolver) GetContact(ctx context.Context, id uuid.UUID) (*ent.Contact, error) {
	c, err := r.db(ctx).Contact.Get(ctx, id)
	return c, apperr.Wrap(err, "contact")
}

// CreateContact creates a contact with a normalised phone number. The
// organization's unique index on the number decides duplicates. Errors:
// invalid (phone number, tags, field lengths, a chat_account that is not
// one of the organization's accounts), conflict (the number is already a
// contact).
func (r *Resolver) CreateContact(ctx context.Context, in CreateContactInput) (*ent.Contact, error) {
	phone, err := NormalizePhone(in.PhoneNumber)
	if err != nil {
		return nil, err
	}
	profileName, err := contactText("profile_name", in.ProfileName)
	if err != nil {
		return nil, err
	}
	chatAccount, err := r.contactAccount(ctx, in.ChatAccount)
	if err != nil {
		return nil, err
	}
	cr := r.db(ctx).Contact.Create().SetPhoneNumber(phone).
		SetNillableProfileName(profileName).SetNillableChatAccount(chatAccount)
	if in.Tags != nil {
		tags, err := NormalizeTags(in.Tags)
		if err != nil {
			return nil, err
		}
		cr.SetTags(tags)
	}
	if in.Metadata != nil {
		if err := validMetadata(in.Metadata); err != nil {
			return nil, err
		}
		cr.SetMetadata(in.Metadata)
	}
	c, err := cr.Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, &apperr.Error{Code: apperr.Conflict, Message: errDuplicatePhone, Err: err}
	}
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	created, err := r.GetContact(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if err := r.record(ctx, events.ContactCreated, created); err != nil {
		return nil, err
	}
	return created, nil
}

// UpdateContact changes the given fields of a contact. An assigned user
// must be a member of the organization; ClearAssignedAgent unassigns.
// Errors: not_found, invalid (as CreateContact; a user who is not a member;
// both an assignee and ClearAssignedAgent).
func (r *Resolver) UpdateContact(ctx context.Context, id uuid.UUID, in UpdateContactInput) (*ent.Contact, error) {
	if in.ClearAssignedAgent && in.AssignedUserID != nil {
		return nil, apperr.Invalidf("give assigned_user_id or clear_assigned_agent, not both")
	}
	profileName, err := contactText("profile_name", in.ProfileName)
	if err != nil {
		return nil, err
	}
	chatAccount, err := r.contactAccount(ctx, in.ChatAccount)
	if err != nil {
		return nil, err
	}
	u := r.db(ctx).Contact.UpdateOneID(id).
		SetNillableProfileName(profileName).SetNillableChatAccount(chatAccount)
	if in.Tags != nil {
		tags, err := NormalizeTags(in.Tags)
		if err != nil {
			return nil, err
		}
		u.SetTags(tags)
	}
	if in.Metadata != nil {
		if err := validMetadata(in.Metadata); err != nil {
			return nil, err
		}
		u.SetMetadata(in.Metadata)
	}
	switch {
	case in.ClearAssignedAgent:
		u.ClearAssignedUserID()
	case in.AssignedUserID != nil:
		if err := r.requireMember(ctx, *in.AssignedUserID, "assigned_user_id"); err != nil {
			return nil, err
		}
		u.SetAssignedUserID(*in.AssignedUserID)
	}
	if _, err := u.Save(ctx); err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	c, err := r.GetContact(ctx, id)
	if err != nil {
		return nil, err
	}
	return c, r.record(ctx, events.ContactUpdated, c)
}

// record records a contact's domain event in the transaction of ctx: a
// rolled-back change announces nothing.
func (r *Resolver) record(ctx context.Context, typ events.Type, c *ent.Contact) error {
	err := r.Events.Record(ctx, events.Event{Type: typ, OrgID: c.OrganizationID, Payload: messaging.NewContactEvent(c)})
	return apperr.Wrap(err, "event")
}

// AssignContact assigns the contact to a member of the organization, or
// unassigns it when userID is nil. Errors: not_found, invalid (the user is
// not a member).
func (r *Resolver) AssignContact(ctx context.Context, id uuid.UUID, userID *uuid.UUID) (*ent.Contact, error) {
	u := r.db(ctx).Contact.UpdateOneID(id)
	if userID == nil {
		u.ClearAssignedUserID()
	} else {
		if err := r.requireMember(ctx, *userID, "user_id"); err != nil {
			return nil, err
		}
		u.SetAssignedUserID(*userID)
	}
	c, err := u.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	return c, r.record(ctx, events.ContactUpdated, c)
}

// requireMember checks that userID is a member of the viewer's
// organization. field names the input for the message.
func (r *Resolver) requireMember(ctx context.Context, userID uuid.UUID, field string) error {
	ok, err := r.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(userID)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "membership")
	}
	if !ok {
		return apperr.Invalidf("%s is not a member of this organization", field)
	}
	return nil
}

// DeleteContact deletes a contact; the database cascades to its messages,
// chatbot sessions, agent transfers and call permissions. Errors:
// not_found.
func (r *Resolver) DeleteContact(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(r.db(ctx).Contact.DeleteOneID(id).Exec(ctx), "contact")
}

// MarkContactRead marks the contact's incoming messages read (those not yet
// read; failed ones keep their status) and clears its unread count.
// Errors: not_found.
func (r *Resolver) MarkContactRead(ctx context.Context, id uuid.UUID) error {
	db := r.db(ctx)
	c, err := db.Contact.UpdateOneID(id).SetUnreadCount(0).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, "contact")
	}
	_, err = db.Message.Update().
		Where(message.ContactID(id), message.DirectionEQ(message.DirectionIncoming),
			message.StatusNotIn(message.StatusRead, message.StatusFailed)).
		SetStatus(message.StatusRead).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, "message")
	}
	return r.record(ctx, events.ContactUpdated, c)
}

// ContactSessionData is what the contact info panel shows: the contact's
// active chatbot session (nil when none) with its flow (nil when the flow
// is gone), and the panel layout of the contact's metadata.
type ContactSessionData struct {
	Contact *ent.Contact
	Session *ent.ChatbotSession
	Flow    *ent.ChatbotFlow
	Panel   PanelConfig
}

// ContactSessionData returns the contact's most recent active chatbot
// session and the panel layout of its metadata. Errors: not_found.
func (r *Resolver) ContactSessionData(ctx context.Context, id uuid.UUID) (*ContactSessionData, error) {
	c, err := r.GetContact(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &ContactSessionData{Contact: c, Panel: BuildPanelConfig(c.Metadata)}
	db := r.db(ctx)
	s, err := db.ChatbotSession.Query().
		Where(chatbotsession.ContactID(id), chatbotsession.StatusEQ(chatbotsession.StatusActive)).
		Order(chatbotsession.ByLastActivity(sql.OrderDesc()), chatbotsession.ByID()).
		First(ctx)
	switch {
	case ent.IsNotFound(err):
		return out, nil
	case err != nil:
		return nil, apperr.Wrap(err, "chatbot session")
	}
	out.Session = s
	if s.CurrentFlowID != nil {
		f, err := db.ChatbotFlow.Query().Where(chatbotflow.ID(*s.CurrentFlowID)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, apperr.Wrap(err, "chatbot flow")
		}
		out.Flow = f
	}
	return out, nil
}

// NormalizeTags trims tags and drops duplicates, keeping the first
// occurrence. Errors: invalid (a tag tags.NormalizeName refuses, more than
// 50 tags).
func NormalizeTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t, err := tagspkg.NormalizeName(t)
		if err != nil {
			return nil, err
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) > maxContactTags {
		return nil, apperr.Invalidf("a contact may have at most %d tags", maxContactTags)
	}
	return out, nil
}

// filterText rejects a NUL character in a list filter: PostgreSQL text
// cannot hold one, and no stored value contains one.
func filterText(field, s string) error {
	if strings.ContainsRune(s, 0) {
		return apperr.Invalidf("%s must not contain NUL characters", field)
	}
	return nil
}

// contactText trims an optional text field and checks its length.
func contactText(field string, s *string) (*string, error) {
	if s == nil {
		return nil, nil
	}
	t := strings.TrimSpace(*s)
	if utf8.RuneCountInString(t) > maxContactField {
		return nil, apperr.Invalidf("%s must be at most %d characters", field, maxContactField)
	}
	if strings.ContainsRune(t, 0) {
		return nil, apperr.Invalidf("%s must not contain NUL characters", field)
	}
	return &t, nil
}

// contactAccount checks a contact's chat_account (the account its
// conversation is held from): empty, or the name of one of the
// organization's accounts. Errors: invalid.
func (r *Resolver) contactAccount(ctx context.Context, s *string) (*string, error) {
	name, err := contactText("chat_account", s)
	if err != nil || name == nil || *name == "" {
		return name, err
	}
	exists, err := r.db(ctx).Account.Query().Where(account.Name(*name)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	if !exists {
		return nil, apperr.Invalidf("chat_account: the organization has no account named %q", *name)
	}
	return name, nil
}

// validMetadata rejects NUL characters anywhere in metadata (PostgreSQL's
// jsonb cannot store them) and numbers outside the float64 range (they
// could be stored but not read back).
func validMetadata(v any) error {
	switch x := v.(type) {
	case string:
		if strings.ContainsRune(x, 0) {
			return apperr.Invalidf("metadata must not contain NUL characters")
		}
	case json.Number:
		if f, err := strconv.ParseFloat(x.String(), 64); err != nil || math.IsInf(f, 0) {
			return apperr.Invalidf("metadata numbers must be finite 64-bit floating-point values")
		}
	case map[string]any:
		for k, e := range x {
			if err := validMetadata(k); err != nil {
				return err
			}
			if err := validMetadata(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := validMetadata(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// PanelConfig lays out a contact's metadata in the contact info panel.
type PanelConfig struct {
	Sections []PanelSection
}

// PanelSection is one section of the panel.
type PanelSection struct {
	ID               string
	Label            string
	Columns          int
	Collapsible      bool
	DefaultCollapsed bool
	Order            int
	Fields           []PanelField
}

// PanelField is one row (or, in a table section, one column) of a section.
type PanelField struct {
	Key   string
	Label string
	Order int
}

// generalSection is the id of the section of the metadata's top-level
// primitives and arrays of primitives (shown as inline badges); it becomes
// "_general" when a nested section takes the id "general".
const generalSection = "general"

// BuildPanelConfig lays out metadata per the spec's display rules: top-level
// primitives and arrays of primitives (badges) are rows of a "general"
// section; an object becomes a collapsible section of key-value rows; an
// array of objects becomes a collapsible table whose columns are the union
// of the objects' keys. Only one level is laid out: deeper values are shown
// by the client as raw JSON text. Keys are taken in sorted order, so the
// layout is stable; section and field orders count from 1.
func BuildPanelConfig(metadata map[string]any) PanelConfig {
	general := PanelSection{ID: generalSection, Label: "General", Columns: 2}
	var nested []PanelSection
	for _, key := range sortedKeys(metadata) {
		switch v := metadata[key].(type) {
		case map[string]any:
			sec := PanelSection{ID: key, Label: HumanizeKey(key), Columns: 2, Collapsible: true}
			sec.Fields = panelFields(sortedKeys(v))
			nested = append(nested, sec)
		case []any:
			if cols, ok := tableColumns(v); ok {
				fields := panelFields(cols)
				nested = append(nested, PanelSection{
					ID: key, Label: HumanizeKey(key), Columns: len(fields), Collapsible: true, Fields: fields,
				})
				continue
			}
			general.Fields = append(general.Fields, PanelField{Key: key, Label: HumanizeKey(key)})
		default:
			general.Fields = append(general.Fields, PanelField{Key: key, Label: HumanizeKey(key)})
		}
	}
	cfg := PanelConfig{Sections: []PanelSection{}}
	if _, taken := metadata[generalSection]; taken && !slices.ContainsFunc(general.Fields,
		func(f PanelField) bool { return f.Key == generalSection }) {
		// A metadata object or table named "general" keeps that id.
		general.ID = "_" + generalSection
	}
	if len(general.Fields) > 0 {
		for i := range general.Fields {
			general.Fields[i].Order = i + 1
		}
		cfg.Sections = append(cfg.Sections, general)
	}
	cfg.Sections = append(cfg.Sections, nested...)
	for i := range cfg.Sections {
		cfg.Sections[i].Order = i + 1
	}
	return cfg
}

// tableColumns returns the union of the keys of a non-empty array of
// objects, in sorted order; ok is false when an element is not an object.
func tableColumns(rows []any) ([]string, bool) {
	if len(rows) == 0 {
		return nil, false
	}
	keys := map[string]any{}
	for _, row := range rows {
		obj, ok := row.(map[string]any)
		if !ok {
			return nil, false
		}
		for k := range obj {
			keys[k] = nil
		}
	}
	return sortedKeys(keys), true
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func panelFields(keys []string) []PanelField {
	fields := make([]PanelField, len(keys))
	for i, k := range keys {
		fields[i] = PanelField{Key: k, Label: HumanizeKey(k), Order: i + 1}
	}
	return fields
}

// HumanizeKey turns a metadata key into a label: words split at
// underscores, dashes, dots, spaces and camelCase humps, each capitalised
// ("order_id" and "orderId" give "Order Id").
func HumanizeKey(key string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(key)
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(runes[i-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	for i, w := range words {
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}
