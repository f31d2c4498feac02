package messaging

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/valid"
)

// Limits of free-form messages, as the platform documents them.
const (
	maxTextBody        = 4096
	maxInteractiveBody = 1024
	maxReplyButtons    = 3
	maxButtonTitle     = 20
	maxButtonID        = 256
	maxCTAURL          = 2000
	maxPreview         = 200
	maxAccountName     = 255
)

// Message types of free-form sends.
const (
	TypeText        = "text"
	TypeInteractive = "interactive"
)

// Interactive types.
const (
	InteractiveButton = "button"
	InteractiveCTAURL = "cta_url"
)

// Outgoing is a free-form message: Type text with Body, or Type
// interactive with Interactive. Account names the sending account (empty:
// the default outgoing account, else the contact's).
type Outgoing struct {
	Type        string
	Body        string
	Interactive *Interactive
	Account     string
	// BotSource marks a chatbot's reply (messages.bot_source: keyword,
	// flow, ai, greeting, fallback, out_of_hours, system); empty for a
	// person's message.
	BotSource string
}

// Interactive is an interactive message: Type button with up to 3 reply
// Buttons, or Type cta_url with ButtonText and URL. Its JSON form is the
// message's interactive_data.
type Interactive struct {
	Type       string   `json:"type"`
	Body       string   `json:"body"`
	Buttons    []Button `json:"buttons,omitempty"`
	ButtonText string   `json:"button_text,omitempty"`
	URL        string   `json:"url,omitempty"`
	// Type flow (sent by SendFlow only).
	Flow *FlowMessage `json:"flow,omitempty"`
}

// Button is one reply button; ID comes back in the contact's reply.
type Button struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Send stores a free-form message (text or interactive) for a contact and
// queues it. Errors: invalid (type, content, a closed service window, no
// account), not_found (contact).
func (s *Service) Send(ctx context.Context, contactID uuid.UUID, o Outgoing) (*ent.Message, error) {
	source, err := botSource(o.BotSource)
	if err != nil {
		return nil, err
	}
	switch o.Type {
	case TypeText:
		return s.sendText(ctx, contactID, o.Account, o.Body, source)
	case TypeInteractive:
		if o.Interactive == nil {
			return nil, apperr.Invalidf("interactive is required for an interactive message")
		}
		return s.sendInteractive(ctx, contactID, o.Account, *o.Interactive, source)
	case "":
		return nil, apperr.Invalidf("type is required (text or interactive)")
	}
	return nil, apperr.Invalidf("type must be text or interactive (templates go to /api/messages/template, media to /api/messages/media)")
}

// botSource is a chatbot reply's messages.bot_source (nil for a person's
// message). Errors: invalid.
func botSource(s string) (*message.BotSource, error) {
	if s == "" {
		return nil, nil
	}
	bs := message.BotSource(s)
	if err := message.BotSourceValidator(bs); err != nil {
		return nil, apperr.Invalidf("bot_source %q is not a chatbot source", s)
	}
	return &bs, nil
}

// SendText stores a text message and queues it. Errors: invalid (empty or
// too long body, a closed service window, no account), not_found
// (contact).
func (s *Service) SendText(ctx context.Context, contactID uuid.UUID, accountName, body string) (*ent.Message, error) {
	return s.sendText(ctx, contactID, accountName, body, nil)
}

func (s *Service) sendText(ctx context.Context, contactID uuid.UUID, accountName, body string, source *message.BotSource) (*ent.Message, error) {
	body, err := valid.RequiredText("content.body", body, maxTextBody)
	if err != nil {
		return nil, err
	}
	return s.sendFreeForm(ctx, contactID, accountName, draft{
		kind: TypeText, content: map[string]any{"body": body}, preview: body, botSource: source,
	})
}

// SendInteractive stores an interactive message and queues it. Errors:
// invalid (the interactive object breaks the platform's rules, a closed
// service window, no account), not_found (contact).
func (s *Service) SendInteractive(ctx context.Context, contactID uuid.UUID, accountName string, in Interactive) (*ent.Message, error) {
	return s.sendInteractive(ctx, contactID, accountName, in, nil)
}

func (s *Service) sendInteractive(ctx context.Context, contactID uuid.UUID, accountName string, in Interactive, source *message.BotSource) (*ent.Message, error) {
	in, err := validInteractive(in)
	if err != nil {
		return nil, err
	}
	return s.sendFreeForm(ctx, contactID, accountName, draft{
		kind: TypeInteractive, content: map[string]any{"body": in.Body}, interactive: toMap(in), preview: in.Body,
		botSource: source,
	})
}

// validInteractive trims in and checks it against the platform's rules.
func validInteractive(in Interactive) (Interactive, error) {
	var err error
	in.Flow = nil // flow messages go through SendFlow only
	if in.Body, err = valid.RequiredText("interactive.body", in.Body, maxInteractiveBody); err != nil {
		return in, err
	}
	switch in.Type {
	case InteractiveButton:
		in.ButtonText, in.URL = "", ""
		in.Buttons, err = validButtons(in.Buttons)
	case InteractiveCTAURL:
		in.Buttons = nil
		if in.ButtonText, err = valid.RequiredText("interactive.button_text", in.ButtonText, maxButtonTitle); err != nil {
			return in, err
		}
		in.URL, err = validLink("interactive.url", in.URL)
	default:
		err = apperr.Invalidf("interactive.type must be button or cta_url")
	}
	return in, err
}

func validButtons(buttons []Button) ([]Button, error) {
	if n := len(buttons); n < 1 || n > maxReplyButtons {
		return nil, apperr.Invalidf("interactive.buttons must hold 1 to %d reply buttons, not %d", maxReplyButtons, n)
	}
	out := make([]Button, len(buttons))
	seen := map[string]bool{}
	for i, b := range buttons {
		id, err := valid.RequiredText("interactive.buttons[].id", b.ID, maxButtonID)
		if err != nil {
			return nil, err
		}
		title, err := valid.RequiredText("interactive.buttons[].title", b.Title, maxButtonTitle)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, apperr.Invalidf("interactive.buttons ids must be unique (%q is repeated)", id)
		}
		seen[id] = true
		out[i] = Button{ID: id, Title: title}
	}
	return out, nil
}

// validLink checks an absolute http(s) URL.
func validLink(field, raw string) (string, error) {
	raw, err := valid.RequiredText(field, raw, maxCTAURL)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", apperr.Invalidf("%s must be an absolute http or https URL", field)
	}
	return raw, nil
}

// draft is an outgoing message ready to be stored.
type draft struct {
	contact     *ent.Contact
	newContact  bool
	account     *ent.Account
	kind        string
	content     map[string]any
	interactive map[string]any
	media       *storedMedia
	// saveMedia, when set, saves the message's file once every check
	// has passed, so that a refused send leaves no file behind.
	saveMedia func(ctx context.Context) (*storedMedia, error)
	preview   string
	// botSource marks a chatbot's reply.
	botSource *message.BotSource
}

// storedMedia is a file of the media store attached to a message.
type storedMedia struct {
	url      string
	mimeType string
	filename string
}

// sendFreeForm checks the contact's service window, resolves the account
// and stores d.
func (s *Service) sendFreeForm(ctx context.Context, contactID uuid.UUID, accountName string, d draft) (*ent.Message, error) {
	var m *ent.Message
	err := s.inTx(ctx, func(ctx context.Context, db *ent.Client) error {
		c, err := db.Contact.Get(ctx, contactID)
		if err != nil {
			return apperr.Wrap(err, "contact")
		}
		if !ServiceWindowOpen(c, s.now()) {
			return apperr.Invalidf("the contact's 24-hour customer service window is closed (no message from them in the last 24 hours): only template messages can be sent")
		}
		d.contact = c
		if d.account, err = s.resolveAccount(ctx, db, accountName, c); err != nil {
			return err
		}
		m, err = s.store(ctx, db, d)
		return err
	})
	return m, err
}

// resolveAccount picks the sending account: the one named, else the
// organization's default outgoing account, else the contact's account.
// It must be active and have an access token. Errors: invalid.
func (s *Service) resolveAccount(ctx context.Context, db *ent.Client, name string, c *ent.Contact) (*ent.Account, error) {
	name = strings.TrimSpace(name)
	if err := valid.Check("account name", name, maxAccountName); err != nil {
		return nil, err
	}
	var (
		a   *ent.Account
		err error
	)
	switch {
	case name != "":
		a, err = db.Account.Query().Where(account.Name(name)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Invalidf("account %q not found", name)
		}
	default:
		a, err = db.Account.Query().Where(account.IsDefaultOutgoing(true)).First(ctx)
		if ent.IsNotFound(err) && c != nil && c.ChatAccount != "" {
			a, err = db.Account.Query().Where(account.Name(c.ChatAccount)).Only(ctx)
			if ent.IsNotFound(err) {
				return nil, apperr.Invalidf("the contact's account %q no longer exists: name an account to send from", c.ChatAccount)
			}
		}
		if ent.IsNotFound(err) {
			return nil, apperr.Invalidf("no account to send from: name one, or set a default outgoing account")
		}
	}
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	switch {
	case a.Status != account.StatusActive:
		return nil, apperr.Invalidf("account %q is %s and cannot send", a.Name, a.Status)
	case len(a.AccessTokenEncrypted) == 0:
		return nil, apperr.Invalidf("account %q has no access token and cannot send", a.Name)
	}
	return a, nil
}

// store inserts d as a pending outgoing message, moves the contact's last
// message forward and records their events, and after the commit queues
// the send. ctx carries the transaction of db.
func (s *Service) store(ctx context.Context, db *ent.Client, d draft) (*ent.Message, error) {
	if d.saveMedia != nil {
		var err error
		if d.media, err = d.saveMedia(ctx); err != nil {
			return nil, err
		}
	}
	now := s.now()
	create := db.Message.Create().SetContactID(d.contact.ID).SetDirection(message.DirectionOutgoing).
		SetMessageType(d.kind).SetContent(d.content).SetStatus(message.StatusPending).
		SetChatAccount(d.account.Name).SetCreatedAt(now).SetUpdatedAt(now)
	if d.interactive != nil {
		create.SetInteractiveData(d.interactive)
	}
	create.SetNillableBotSource(d.botSource)
	if d.media != nil {
		create.SetMediaURL(d.media.url).SetMediaMimeType(d.media.mimeType).SetMediaFilename(d.media.filename)
	}
	if v := viewer.FromContext(ctx); v != nil && !v.System && v.UserID != uuid.Nil {
		create.SetSentByUserID(v.UserID)
	}
	m, err := create.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	for _, hook := range s.outgoingHooks {
		if err := hook(ctx, db, m); err != nil {
			return nil, err
		}
	}
	c, err := db.Contact.UpdateOneID(d.contact.ID).SetLastMessageAt(now).
		SetLastMessagePreview(truncate(d.preview, maxPreview)).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	contactEvent := events.ContactUpdated
	if d.newContact {
		contactEvent = events.ContactCreated
	}
	err = s.Events.Record(ctx,
		events.Event{Type: events.MessageQueued, OrgID: m.OrganizationID, Payload: NewMessageEvent(m)},
		events.Event{Type: contactEvent, OrgID: m.OrganizationID, Payload: NewContactEvent(c)})
	if err != nil {
		return nil, apperr.Wrap(err, "event")
	}
	database.AfterCommit(ctx, func() { s.enqueue(context.WithoutCancel(ctx), m.OrganizationID, m.ID) })
	return m, nil
}

// toMap is v's JSON object form.
func toMap(v any) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &out)
	return out
}

// truncate shortens s to n characters, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
