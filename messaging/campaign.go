package messaging

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/template"
	"switchboard/events"
	"switchboard/provider"
	"switchboard/templates"
)

// This file holds the narrow functions bulk senders (campaigns/) use: they
// call the platform themselves, paced, and store what it accepted as an
// outgoing message like any other, so status tracking, message events and
// outbound webhooks work as for an agent's send. messaging never imports
// its callers; they register a StatusHook to follow statuses.

// StatusHook sees one organization's status reports in the transaction
// that applies them to messages (after they are applied, so a message a
// hook stores for an id applies the statuses parked for it). ctx carries
// the organization's viewer and the transaction of db. It returns the
// domain events to record with the batch.
type StatusHook func(ctx context.Context, db *ent.Client, orgID uuid.UUID, updates []StatusUpdate) ([]events.Event, error)

// OnStatuses registers a hook for every batch of status reports. Register
// hooks before the inbound pipeline runs.
func (s *Service) OnStatuses(h StatusHook) { s.statusHooks = append(s.statusHooks, h) }

// OutgoingHook sees every outgoing message an agent, an API key or the
// system stores (free-form, media and template sends), in the transaction
// that stores it; ctx carries the sender's viewer and the transaction of
// db. An error fails the send.
type OutgoingHook func(ctx context.Context, db *ent.Client, m *ent.Message) error

// OnOutgoing registers a hook for every stored outgoing message (the
// transfers' first response and client timers follow agents' messages
// this way, without messaging importing them). Register hooks before
// serving.
func (s *Service) OnOutgoing(h OutgoingHook) { s.outgoingHooks = append(s.outgoingHooks, h) }

// ParamsChecker checks the parameters of many sends of one template (a
// campaign's recipients): the variables are read once. It uses the same
// rules as SendTemplate for the body and the TEXT header.
type ParamsChecker struct {
	t      *ent.Template
	body   []string
	header []string
}

// NewParamsChecker reads t's body and TEXT header variables.
func NewParamsChecker(t *ent.Template) *ParamsChecker {
	p := &ParamsChecker{t: t, body: templates.VariableNames(t.BodyContent)}
	if t.HeaderType == template.HeaderTypeTEXT {
		p.header = templates.VariableNames(t.HeaderContent)
	}
	return p
}

// HeaderKind is the media kind of a media header (image, video,
// document), or "" for TEXT and NONE headers.
func HeaderKind(t *ent.Template) string { return headerKinds[t.HeaderType] }

// CheckButtons tells whether buttons (button index to value) hold a value
// for every URL button of the template whose URL has a variable, and
// nothing else, as SendTemplate checks button_params. Errors: invalid.
func (p *ParamsChecker) CheckButtons(buttons map[string]string) error {
	_, err := bindButtons(p.t, buttons)
	return err
}

// Check tells whether body and header hold exactly the template's
// variables with values the platform accepts. Errors: invalid.
func (p *ParamsChecker) Check(body, header map[string]string) error {
	if _, err := bindParams("template_params", p.t, p.body, body); err != nil {
		return err
	}
	if len(header) > 1 {
		return apperr.Invalidf("header_params takes at most 1 TEXT header variable, not %d", len(header))
	}
	if p.t.HeaderType != template.HeaderTypeTEXT {
		if len(header) > 0 {
			return apperr.Invalidf("header_params: template %q has no TEXT header", p.t.Name)
		}
		return nil
	}
	if len(p.header) > 1 {
		return apperr.Invalidf("template %q has %d TEXT header variables; at most 1 is supported", p.t.Name, len(p.header))
	}
	_, err := bindParams("header_params", p.t, p.header, header)
	return err
}

// CheckMedia returns the sniffed content type of a template header file
// of kind (image, video, document) when the spec's limits accept it.
// Errors: invalid.
func CheckMedia(kind, field string, u Upload) (string, error) {
	if _, ok := mediaRules[kind]; !ok {
		return "", apperr.Invalidf("%s: media of kind %q is not accepted", field, kind)
	}
	return checkUpload(kind, field, u)
}

// UploadName is the file name kept for an upload (the base of the client's
// name, or one made from the kind and type).
func UploadName(name, kind, mimeType string) string { return uploadName(name, kind, mimeType) }

// PreparedTemplate is a template message to one phone number, checked and
// rendered: Message is what the platform is sent, and the rest is what
// StoreSentTemplate stores once the platform accepted it.
type PreparedTemplate struct {
	Message provider.OutgoingMessage
	phone   string
	account string
	d       draft
}

// TemplateSend describes one send of a bulk sender. HeaderMediaID is the
// platform media id of a media header (HeaderFilename names a document).
type TemplateSend struct {
	Template       *ent.Template
	AccountName    string
	Phone          string
	TemplateParams map[string]string
	HeaderParams   map[string]string
	// ButtonParams fill dynamic URL buttons by button index ("0", ...).
	ButtonParams   map[string]string
	HeaderMediaID  string
	HeaderFilename string
	CallbackData   string
}

// PrepareTemplate checks and renders a template send, as SendTemplate does
// (without the approval and account checks, which the bulk sender does
// once). Errors: invalid.
func (s *Service) PrepareTemplate(ctx context.Context, in TemplateSend) (*PreparedTemplate, error) {
	d, err := bindTemplate(in.Template, TemplateInput{
		TemplateParams: in.TemplateParams, HeaderParams: in.HeaderParams, ButtonParams: in.ButtonParams,
		HeaderMediaID: in.HeaderMediaID,
	})
	if err != nil {
		return nil, err
	}
	// The content as it is stored (JSON objects), which templateMessage
	// reads.
	d.content = toMap(d.content)
	if kind := HeaderKind(in.Template); kind != "" {
		if in.HeaderMediaID == "" {
			return nil, apperr.Invalidf("template %q has a %s header: the campaign needs its header media", in.Template.Name, in.Template.HeaderType)
		}
		d.media = &storedMedia{filename: in.HeaderFilename}
	}
	m := &ent.Message{Content: d.content}
	if d.media != nil {
		m.MediaFilename = d.media.filename
	}
	t, err := s.templateMessage(ctx, provider.Account{}, m)
	if err != nil {
		return nil, apperr.Invalidf("%s", err.Error())
	}
	return &PreparedTemplate{
		Message: provider.OutgoingMessage{To: in.Phone, Template: t, CallbackData: in.CallbackData},
		phone:   in.Phone, account: in.AccountName, d: d,
	}, nil
}

// StoreSentTemplate stores a prepared template message that the platform
// accepted as wamid: the contact of its phone number (created when new),
// the outgoing message with status sent, the statuses parked for wamid,
// and the message's events (message:new, message:status and the
// message:sent webhook, the contact's event). It runs in the transaction
// ctx carries (db is its client) and is idempotent: a message already
// stored for wamid is returned as it is.
func (s *Service) StoreSentTemplate(ctx context.Context, db *ent.Client, p *PreparedTemplate, wamid string) (*ent.Message, error) {
	if m, err := db.Message.Query().Where(message.ChatMessageID(wamid)).Only(ctx); err == nil {
		return m, nil
	} else if !ent.IsNotFound(err) {
		return nil, apperr.Wrap(err, "message")
	}
	c, created, err := upsertContact(ctx, db, p.phone, p.account)
	if err != nil {
		return nil, err
	}
	now := s.now()
	create := db.Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).
		SetMessageType(TypeTemplate).SetContent(p.d.content).SetStatus(message.StatusSent).
		SetChatMessageID(wamid).SetChatAccount(p.account).SetCreatedAt(now).SetUpdatedAt(now)
	if p.d.media != nil {
		create.SetMediaFilename(p.d.media.filename)
	}
	m, err := create.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	c, err = db.Contact.UpdateOneID(c.ID).SetLastMessageAt(now).
		SetLastMessagePreview(truncate(p.d.preview, maxPreview)).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	changed, err := ApplyParked(ctx, db, wamid)
	if err != nil {
		return nil, apperr.Wrap(err, "message")
	}
	if changed {
		if m, err = db.Message.Get(ctx, m.ID); err != nil {
			return nil, apperr.Wrap(err, "message")
		}
	}
	contactEvent := events.ContactUpdated
	if created {
		contactEvent = events.ContactCreated
	}
	err = s.Events.Record(ctx,
		events.Event{Type: events.MessageQueued, OrgID: m.OrganizationID, Payload: NewMessageEvent(m)},
		events.Event{Type: events.MessageSent, OrgID: m.OrganizationID, Payload: sentEvent{
			MessageEvent: NewMessageEvent(m), ChatAccount: m.ChatAccount, PhoneNumber: c.PhoneNumber,
		}},
		events.Event{Type: contactEvent, OrgID: m.OrganizationID, Payload: NewContactEvent(c)})
	if err != nil {
		return nil, apperr.Wrap(err, "event")
	}
	return m, nil
}
