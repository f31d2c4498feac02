package graph

import (
	"context"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/cannedresponse"
	"switchboard/ent/viewer"
)

// Limits of a canned response.
const (
	maxCannedName       = 255
	maxCannedShortcut   = 50
	maxCannedCategory   = 100
	maxCannedContent    = 4096 // the platform's text body limit
	maxCannedButtons    = 10
	maxReplyButtons     = 3
	maxReplyButtonTitle = 20
	maxButtonTitle      = 64
	maxButtonID         = 256
	maxButtonTTLMinutes = 43200 // 30 days
)

// Canned response button types.
const (
	ButtonReply     = "reply"
	ButtonURL       = "url"
	ButtonPhone     = "phone"
	ButtonVoiceCall = "voice_call"
)

// CannedButton is a button of a canned response. URL belongs to url
// buttons, PhoneNumber to phone buttons, TTLMinutes to voice_call buttons.
type CannedButton struct {
	ID          string
	Title       string
	Type        string
	URL         string
	PhoneNumber string
	TTLMinutes  *int
}

// CannedFilter selects canned responses of a list.
type CannedFilter struct {
	// Category matches exactly (case-insensitive).
	Category string
	// Search matches name, content or shortcut (case-insensitive).
	Search string
	// ActiveOnly leaves out inactive responses.
	ActiveOnly bool
}

// CreateCannedResponseInput is a new canned response.
type CreateCannedResponseInput struct {
	Name     string
	Content  string
	Shortcut *string
	Category *string
	Buttons  []CannedButton
}

// UpdateCannedResponseInput changes the non-nil fields; Buttons replaces
// the stored buttons when not nil.
type UpdateCannedResponseInput struct {
	Name     *string
	Content  *string
	Shortcut *string
	Category *string
	IsActive *bool
	Buttons  []CannedButton
}

// CannedResponsePage is one page of canned responses with the total of the
// filter.
type CannedResponsePage struct {
	CannedResponses []*ent.CannedResponse
	Total           int
}

// CannedResponsesQuery returns the canned responses of the viewer's
// organization matching f. Errors: invalid (a NUL character in the
// filter).
func (r *Resolver) CannedResponsesQuery(ctx context.Context, f CannedFilter) (*ent.CannedResponseQuery, error) {
	if err := filterText("search", f.Search); err != nil {
		return nil, err
	}
	if err := filterText("category", f.Category); err != nil {
		return nil, err
	}
	q := r.db(ctx).CannedResponse.Query()
	if c := strings.TrimSpace(f.Category); c != "" {
		q = q.Where(cannedresponse.CategoryEqualFold(c))
	}
	if s := strings.TrimSpace(f.Search); s != "" {
		q = q.Where(cannedresponse.Or(cannedresponse.NameContainsFold(s),
			cannedresponse.ContentContainsFold(s), cannedresponse.ShortcutContainsFold(s)))
	}
	if f.ActiveOnly {
		q = q.Where(cannedresponse.IsActive(true))
	}
	return q, nil
}

// ListCannedResponses returns a page of CannedResponsesQuery ordered by
// name, with the total from a window count. Errors: invalid (a NUL
// character in the filter).
func (r *Resolver) ListCannedResponses(ctx context.Context, f CannedFilter, offset, limit int) (*CannedResponsePage, error) {
	q, err := r.CannedResponsesQuery(ctx, f)
	if err != nil {
		return nil, err
	}
	rs, err := q.Clone().
		Modify(withTotal).
		Order(cannedresponse.ByName(), cannedresponse.ByID()).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "canned response")
	}
	page := &CannedResponsePage{CannedResponses: rs}
	if page.Total, err = pageTotal(rs, offset, func() (int, error) { return q.Count(ctx) }); err != nil {
		return nil, apperr.Wrap(err, "canned response")
	}
	return page, nil
}

// GetCannedResponse returns a canned response. Errors: not_found.
func (r *Resolver) GetCannedResponse(ctx context.Context, id uuid.UUID) (*ent.CannedResponse, error) {
	c, err := r.db(ctx).CannedResponse.Get(ctx, id)
	return c, apperr.Wrap(err, "canned response")
}

// CreateCannedResponse creates an active canned response. Errors: invalid (name or content
// missing, a field too long, a shortcut another response of the
// organization uses, an invalid button).
func (r *Resolver) CreateCannedResponse(ctx context.Context, in CreateCannedResponseInput) (*ent.CannedResponse, error) {
	name, err := cannedText("name", &in.Name, maxCannedName, true)
	if err != nil {
		return nil, err
	}
	content, err := cannedText("content", &in.Content, maxCannedContent, true)
	if err != nil {
		return nil, err
	}
	category, err := cannedText("category", in.Category, maxCannedCategory, false)
	if err != nil {
		return nil, err
	}
	shortcut, err := r.validShortcut(ctx, in.Shortcut, uuid.Nil)
	if err != nil {
		return nil, err
	}
	buttons, err := normalizeButtons(in.Buttons)
	if err != nil {
		return nil, err
	}
	cr := r.db(ctx).CannedResponse.Create().SetName(*name).SetContent(*content).
		SetNillableShortcut(shortcut).SetNillableCategory(category).SetButtons(buttons)
	if v := viewer.FromContext(ctx); v.UserID != uuid.Nil {
		cr.SetCreatedByID(v.UserID)
	}
	c, err := cr.Save(ctx)
	return c, apperr.Wrap(err, "canned response")
}

// UpdateCannedResponse changes the given fields. Who may, and the errors,
// as CreateCannedResponse; also not_found.
func (r *Resolver) UpdateCannedResponse(ctx context.Context, id uuid.UUID, in UpdateCannedResponseInput) (*ent.CannedResponse, error) {
	if _, err := r.GetCannedResponse(ctx, id); err != nil {
		return nil, err
	}
	name, err := cannedText("name", in.Name, maxCannedName, true)
	if err != nil {
		return nil, err
	}
	content, err := cannedText("content", in.Content, maxCannedContent, true)
	if err != nil {
		return nil, err
	}
	category, err := cannedText("category", in.Category, maxCannedCategory, false)
	if err != nil {
		return nil, err
	}
	shortcut, err := r.validShortcut(ctx, in.Shortcut, id)
	if err != nil {
		return nil, err
	}
	u := r.db(ctx).CannedResponse.UpdateOneID(id).
		SetNillableName(name).SetNillableContent(content).SetNillableCategory(category).
		SetNillableShortcut(shortcut).SetNillableIsActive(in.IsActive)
	if in.Buttons != nil {
		buttons, err := normalizeButtons(in.Buttons)
		if err != nil {
			return nil, err
		}
		u.SetButtons(buttons)
	}
	c, err := u.Save(ctx)
	return c, apperr.Wrap(err, "canned response")
}

// DeleteCannedResponse deletes a canned response. Who may as
// CreateCannedResponse. Errors: not_found.
func (r *Resolver) DeleteCannedResponse(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(r.db(ctx).CannedResponse.DeleteOneID(id).Exec(ctx), "canned response")
}

// UseCannedResponse counts one use of an active canned response (an atomic
// increment; updated_at, which tracks edits, is kept) and returns its
// content, with {{contact_name}} and {{phone_number}} filled from the
// contact when contactID is set. Any viewer who may list canned responses
// may use them. Errors: not_found (the response or the contact), invalid
// (the response is inactive).
func (r *Resolver) UseCannedResponse(ctx context.Context, id uuid.UUID, contactID *uuid.UUID) (string, error) {
	cur, err := r.GetCannedResponse(ctx, id)
	if err != nil {
		return "", err
	}
	if !cur.IsActive {
		return "", apperr.Invalidf("canned response is not active")
	}
	content := cur.Content
	if contactID != nil {
		c, err := r.GetContact(ctx, *contactID)
		if err != nil {
			return "", err
		}
		content = RenderCannedContent(content, c)
	}
	err = r.db(ctx).CannedResponse.UpdateOneID(id).AddUsageCount(1).SetUpdatedAt(cur.UpdatedAt).Exec(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "canned response")
	}
	return content, nil
}

// RenderCannedContent fills a canned response's placeholders from c:
// {{contact_name}} is the contact's name, else its profile name, else its
// phone number; {{phone_number}} is its phone number.
func RenderCannedContent(content string, c *ent.Contact) string {
	name := c.Name
	if name == "" {
		name = c.ProfileName
	}
	if name == "" {
		name = c.PhoneNumber
	}
	return strings.NewReplacer("{{contact_name}}", name, "{{phone_number}}", c.PhoneNumber).Replace(content)
}

// cannedText trims an optional text field and checks it: present when
// required, at most max characters, no NUL characters.
func cannedText(field string, s *string, max int, required bool) (*string, error) {
	if s == nil {
		return nil, nil
	}
	t := strings.TrimSpace(*s)
	switch {
	case required && t == "":
		return nil, apperr.Invalidf("%s is required", field)
	case utf8.RuneCountInString(t) > max:
		return nil, apperr.Invalidf("%s must be at most %d characters", field, max)
	case strings.ContainsRune(t, 0):
		return nil, apperr.Invalidf("%s must not contain NUL characters", field)
	}
	return &t, nil
}

// validShortcut checks that a non-empty shortcut is not used
// (case-insensitively) by another canned response of the organization than
// self. The schema has no unique index for it, so this is a check before
// the write.
func (r *Resolver) validShortcut(ctx context.Context, s *string, self uuid.UUID) (*string, error) {
	shortcut, err := cannedText("shortcut", s, maxCannedShortcut, false)
	if err != nil || shortcut == nil || *shortcut == "" {
		return shortcut, err
	}
	taken, err := r.db(ctx).CannedResponse.Query().
		Where(cannedresponse.ShortcutEqualFold(*shortcut), cannedresponse.IDNEQ(self)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "canned response")
	}
	if taken {
		return nil, apperr.Invalidf("shortcut %q is already used by another canned response", *shortcut)
	}
	return shortcut, nil
}

// normalizeButtons validates buttons and returns them as stored: id, title
// and type always, plus url, phone_number or ttl_minutes by type. Errors:
// invalid naming the button (1-based) and the problem.
func normalizeButtons(buttons []CannedButton) ([]map[string]any, error) {
	if len(buttons) > maxCannedButtons {
		return nil, apperr.Invalidf("at most %d buttons are allowed", maxCannedButtons)
	}
	out := make([]map[string]any, 0, len(buttons))
	ids := map[string]bool{}
	replies := 0
	for i, b := range buttons {
		n := i + 1
		id, title := strings.TrimSpace(b.ID), strings.TrimSpace(b.Title)
		typ := strings.TrimSpace(b.Type)
		if typ == "" {
			typ = ButtonReply
		}
		switch {
		case id == "":
			return nil, apperr.Invalidf("button %d: id is required", n)
		case utf8.RuneCountInString(id) > maxButtonID:
			return nil, apperr.Invalidf("button %d: id must be at most %d characters", n, maxButtonID)
		case ids[id]:
			return nil, apperr.Invalidf("button %d: id %q is used by another button", n, id)
		case title == "":
			return nil, apperr.Invalidf("button %d: title is required", n)
		case strings.ContainsRune(id+title+b.URL+b.PhoneNumber, 0):
			return nil, apperr.Invalidf("button %d: text must not contain NUL characters", n)
		}
		ids[id] = true
		btn := map[string]any{"id": id, "title": title, "type": typ}
		switch typ {
		case ButtonReply:
			replies++
			if utf8.RuneCountInString(title) > maxReplyButtonTitle {
				return nil, apperr.Invalidf("button %d: a reply button title must be at most %d characters", n, maxReplyButtonTitle)
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
			if _, err := NormalizePhone(p); err != nil {
				return nil, apperr.Invalidf("button %d: phone_number must have %d to %d digits", n, minPhoneDigits, maxPhoneDigits)
			}
			btn["phone_number"] = p
		case ButtonVoiceCall:
			if t := b.TTLMinutes; t != nil {
				if *t < 1 || *t > maxButtonTTLMinutes {
					return nil, apperr.Invalidf("button %d: ttl_minutes must be between 1 and %d", n, maxButtonTTLMinutes)
				}
				btn["ttl_minutes"] = *t
			}
		default:
			return nil, apperr.Invalidf("button %d: type must be one of reply, url, phone, voice_call", n)
		}
		if typ != ButtonReply && utf8.RuneCountInString(title) > maxButtonTitle {
			return nil, apperr.Invalidf("button %d: title must be at most %d characters", n, maxButtonTitle)
		}
		out = append(out, btn)
	}
	if replies > maxReplyButtons {
		return nil, apperr.Invalidf("at most %d reply buttons are allowed", maxReplyButtons)
	}
	return out, nil
}

// httpURL reports whether s is an absolute http(s) URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
