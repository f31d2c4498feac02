// Package canned owns the organization's canned responses: saved replies
// with a name, an optional shortcut (unique per organization,
// case-insensitively), a category, content with the placeholders
// {{contact_name}} and {{phone_number}}, and buttons (reply, url, phone,
// voice_call) checked against the platform's limits. Using one counts the
// use and fills the placeholders from a contact. It reads contacts but
// never changes them, and sends nothing: the agent's client sends the
// content through package messaging. Transports (rest/, graph/) call its
// Service.
package canned

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/cannedresponse"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
	"switchboard/messaging"
)

// Limits of a canned response.
const (
	MaxName             = 255
	MaxShortcut         = 50
	MaxCategory         = 100
	MaxContent          = 4096 // the platform's text body limit
	MaxButtons          = 10
	MaxReplyButtons     = 3
	MaxReplyButtonTitle = 20
	MaxButtonTitle      = 64
	MaxButtonID         = 256
	MaxButtonTTLMinutes = 43200 // 30 days
)

// Button types.
const (
	ButtonReply     = "reply"
	ButtonURL       = "url"
	ButtonPhone     = "phone"
	ButtonVoiceCall = "voice_call"
)

// Service is the canned responses' operations.
type Service struct {
	Client *ent.Client
}

// Button is a button of a canned response. URL belongs to url buttons,
// PhoneNumber to phone buttons, TTLMinutes to voice_call buttons.
type Button struct {
	ID          string
	Title       string
	Type        string
	URL         string
	PhoneNumber string
	TTLMinutes  *int
}

// Filter selects canned responses of a list.
type Filter struct {
	// Category matches exactly (case-insensitive).
	Category string
	// Search matches name, content or shortcut (case-insensitive).
	Search string
	// ActiveOnly leaves out inactive responses.
	ActiveOnly bool
}

// CreateInput is a new canned response.
type CreateInput struct {
	Name     string
	Content  string
	Shortcut *string
	Category *string
	Buttons  []Button
}

// UpdateInput changes the non-nil fields; Buttons replaces the stored
// buttons when not nil.
type UpdateInput struct {
	Name     *string
	Content  *string
	Shortcut *string
	Category *string
	IsActive *bool
	Buttons  []Button
}

// Page is one page of canned responses with the total of the filter.
type Page struct {
	CannedResponses []*ent.CannedResponse
	Total           int
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Query returns the canned responses of the viewer's organization
// matching f. Errors: invalid (a NUL character in the filter).
func (s *Service) Query(ctx context.Context, f Filter) (*ent.CannedResponseQuery, error) {
	if err := valid.NoNUL("search", f.Search); err != nil {
		return nil, err
	}
	if err := valid.NoNUL("category", f.Category); err != nil {
		return nil, err
	}
	q := s.db(ctx).CannedResponse.Query()
	if c := strings.TrimSpace(f.Category); c != "" {
		q = q.Where(cannedresponse.CategoryEqualFold(c))
	}
	if t := strings.TrimSpace(f.Search); t != "" {
		q = q.Where(cannedresponse.Or(cannedresponse.NameContainsFold(t),
			cannedresponse.ContentContainsFold(t), cannedresponse.ShortcutContainsFold(t)))
	}
	if f.ActiveOnly {
		q = q.Where(cannedresponse.IsActive(true))
	}
	return q, nil
}

// List returns a page of Query ordered by name, with the total from a
// window count. Errors: invalid (a NUL character in the filter).
func (s *Service) List(ctx context.Context, f Filter, offset, limit int) (*Page, error) {
	q, err := s.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	rs, err := q.Clone().
		Modify(database.WithTotal).
		Order(cannedresponse.ByName(), cannedresponse.ByID()).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "canned response")
	}
	page := &Page{CannedResponses: rs}
	if page.Total, err = database.PageTotal(rs, offset, func() (int, error) { return q.Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "canned response")
	}
	return page, nil
}

// Get returns a canned response. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.CannedResponse, error) {
	c, err := s.db(ctx).CannedResponse.Get(ctx, id)
	return c, apperr.Wrap(err, "canned response")
}

// Create creates an active canned response. Errors: invalid (name or
// content missing, a field too long, a shortcut another response of the
// organization uses, an invalid button).
func (s *Service) Create(ctx context.Context, in CreateInput) (*ent.CannedResponse, error) {
	name, err := text("name", &in.Name, MaxName, true)
	if err != nil {
		return nil, err
	}
	content, err := text("content", &in.Content, MaxContent, true)
	if err != nil {
		return nil, err
	}
	category, err := text("category", in.Category, MaxCategory, false)
	if err != nil {
		return nil, err
	}
	shortcut, err := s.freeShortcut(ctx, in.Shortcut, uuid.Nil)
	if err != nil {
		return nil, err
	}
	buttons, err := NormalizeButtons(in.Buttons)
	if err != nil {
		return nil, err
	}
	cr := s.db(ctx).CannedResponse.Create().SetName(*name).SetContent(*content).
		SetNillableShortcut(shortcut).SetNillableCategory(category).SetButtons(buttons)
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		cr.SetCreatedByID(v.UserID)
	}
	c, err := cr.Save(ctx)
	return c, apperr.Wrap(err, "canned response")
}

// Update changes the given fields. Errors: as Create; also not_found.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*ent.CannedResponse, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	name, err := text("name", in.Name, MaxName, true)
	if err != nil {
		return nil, err
	}
	content, err := text("content", in.Content, MaxContent, true)
	if err != nil {
		return nil, err
	}
	category, err := text("category", in.Category, MaxCategory, false)
	if err != nil {
		return nil, err
	}
	shortcut, err := s.freeShortcut(ctx, in.Shortcut, id)
	if err != nil {
		return nil, err
	}
	u := s.db(ctx).CannedResponse.UpdateOneID(id).
		SetNillableName(name).SetNillableContent(content).SetNillableCategory(category).
		SetNillableShortcut(shortcut).SetNillableIsActive(in.IsActive)
	if in.Buttons != nil {
		buttons, err := NormalizeButtons(in.Buttons)
		if err != nil {
			return nil, err
		}
		u.SetButtons(buttons)
	}
	c, err := u.Save(ctx)
	return c, apperr.Wrap(err, "canned response")
}

// Delete deletes a canned response. Errors: not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(s.db(ctx).CannedResponse.DeleteOneID(id).Exec(ctx), "canned response")
}

// Use counts one use of an active canned response (an atomic increment;
// updated_at, which tracks edits, is kept) and returns its content, with
// {{contact_name}} and {{phone_number}} filled from the contact when
// contactID is set. Any viewer who may list canned responses may use
// them. Errors: not_found (the response or the contact), invalid (the
// response is inactive).
func (s *Service) Use(ctx context.Context, id uuid.UUID, contactID *uuid.UUID) (string, error) {
	cur, err := s.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if !cur.IsActive {
		return "", apperr.Invalidf("canned response is not active")
	}
	db := s.db(ctx)
	content := cur.Content
	if contactID != nil {
		c, err := db.Contact.Get(ctx, *contactID)
		if err != nil {
			return "", apperr.Wrap(err, "contact")
		}
		content = Render(content, c)
	}
	err = db.CannedResponse.UpdateOneID(id).AddUsageCount(1).SetUpdatedAt(cur.UpdatedAt).Exec(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "canned response")
	}
	return content, nil
}

// Render fills a canned response's placeholders from c: {{contact_name}}
// is the contact's name, else its profile name, else its phone number;
// {{phone_number}} is its phone number.
func Render(content string, c *ent.Contact) string {
	name := c.Name
	if name == "" {
		name = c.ProfileName
	}
	if name == "" {
		name = c.PhoneNumber
	}
	return strings.NewReplacer("{{contact_name}}", name, "{{phone_number}}", c.PhoneNumber).Replace(content)
}

// text trims an optional text field and checks it: present when
// required, at most max characters, no NUL characters.
func text(field string, s *string, max int, required bool) (*string, error) {
	if s == nil {
		return nil, nil
	}
	check := valid.Text
	if required {
		check = valid.RequiredText
	}
	t, err := check(field, *s, max)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// freeShortcut checks that a non-empty shortcut is not used
// (case-insensitively) by another canned response of the organization
// than self. The schema has no unique index for it, so this is a check
// before the write.
func (s *Service) freeShortcut(ctx context.Context, sc *string, self uuid.UUID) (*string, error) {
	shortcut, err := text("shortcut", sc, MaxShortcut, false)
	if err != nil || shortcut == nil || *shortcut == "" {
		return shortcut, err
	}
	taken, err := s.db(ctx).CannedResponse.Query().
		Where(cannedresponse.ShortcutEqualFold(*shortcut), cannedresponse.IDNEQ(self)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "canned response")
	}
	if taken {
		return nil, apperr.Invalidf("shortcut %q is already used by another canned response", *shortcut)
	}
	return shortcut, nil
}

// NormalizeButtons validates buttons and returns them as stored: id,
// title and type always, plus url, phone_number or ttl_minutes by type.
// Errors: invalid naming the button (1-based) and the problem.
func NormalizeButtons(buttons []Button) ([]map[string]any, error) {
	if len(buttons) > MaxButtons {
		return nil, apperr.Invalidf("at most %d buttons are allowed", MaxButtons)
	}
	out := make([]map[string]any, 0, len(buttons))
	ids := map[string]bool{}
	replies := 0
	for i, b := range buttons {
		btn, err := normalizeButton(i+1, b, ids)
		if err != nil {
			return nil, err
		}
		if btn["type"] == ButtonReply {
			replies++
		}
		out = append(out, btn)
	}
	if replies > MaxReplyButtons {
		return nil, apperr.Invalidf("at most %d reply buttons are allowed", MaxReplyButtons)
	}
	return out, nil
}

// normalizeButton checks button n (1-based) against the rules of its type
// and the ids of the buttons before it, and returns it as stored.
func normalizeButton(n int, b Button, ids map[string]bool) (map[string]any, error) {
	id, title := strings.TrimSpace(b.ID), strings.TrimSpace(b.Title)
	typ := strings.TrimSpace(b.Type)
	if typ == "" {
		typ = ButtonReply
	}
	switch {
	case id == "":
		return nil, apperr.Invalidf("button %d: id is required", n)
	case utf8.RuneCountInString(id) > MaxButtonID:
		return nil, apperr.Invalidf("button %d: id must be at most %d characters", n, MaxButtonID)
	case ids[id]:
		return nil, apperr.Invalidf("button %d: id %q is used by another button", n, id)
	case title == "":
		return nil, apperr.Invalidf("button %d: title is required", n)
	case strings.ContainsRune(id+title+b.URL+b.PhoneNumber, 0):
		return nil, valid.NUL(fmt.Sprintf("button %d: text", n))
	}
	ids[id] = true
	btn := map[string]any{"id": id, "title": title, "type": typ}
	switch typ {
	case ButtonReply:
		if utf8.RuneCountInString(title) > MaxReplyButtonTitle {
			return nil, apperr.Invalidf("button %d: a reply button title must be at most %d characters", n, MaxReplyButtonTitle)
		}
	case ButtonURL:
		u := strings.TrimSpace(b.URL)
		if u == "" {
			return nil, apperr.Invalidf("button %d: url is required for a url button", n)
		}
		if !httpURL(u) {
			return nil, apperr.Invalidf("button %d: url must be an http or https URL", n)
		}
		btn["url"] = u
	case ButtonPhone:
		p := strings.TrimSpace(b.PhoneNumber)
		if p == "" {
			return nil, apperr.Invalidf("button %d: phone_number is required for a phone button", n)
		}
		if _, err := messaging.NormalizePhone(p); err != nil {
			return nil, apperr.Invalidf("button %d: phone_number must have %d to %d digits", n, messaging.MinPhoneDigits, messaging.MaxPhoneDigits)
		}
		btn["phone_number"] = p
	case ButtonVoiceCall:
		if t := b.TTLMinutes; t != nil {
			if *t < 1 || *t > MaxButtonTTLMinutes {
				return nil, apperr.Invalidf("button %d: ttl_minutes must be between 1 and %d", n, MaxButtonTTLMinutes)
			}
			btn["ttl_minutes"] = *t
		}
	default:
		return nil, apperr.Invalidf("button %d: type must be one of reply, url, phone, voice_call", n)
	}
	if typ != ButtonReply && utf8.RuneCountInString(title) > MaxButtonTitle {
		return nil, apperr.Invalidf("button %d: title must be at most %d characters", n, MaxButtonTitle)
	}
	return btn, nil
}

// httpURL reports whether s is an absolute http(s) URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
