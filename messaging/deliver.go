package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/media"
	"switchboard/provider"
)

// maxErrorMessage bounds the failure reason stored on a message.
const maxErrorMessage = 1000

// handleSend is the TaskSend handler.
func (s *Service) handleSend(ctx context.Context, t *asynq.Task) error {
	var task sendTask
	if err := json.Unmarshal(t.Payload(), &task); err != nil {
		return fmt.Errorf("messaging: bad send task: %w: %w", err, asynq.SkipRetry)
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	return s.Deliver(ctx, task.OrgID, task.MessageID, retried >= maxRetry)
}

// permanentError is a send that no retry can make succeed.
type permanentError struct{ reason string }

func (e *permanentError) Error() string { return e.reason }

func permanent(format string, args ...any) error {
	return &permanentError{reason: fmt.Sprintf(format, args...)}
}

// Deliver sends a pending outgoing message through the provider and
// records the outcome. It is idempotent: a message that is no longer
// pending, or already has a platform id, is left alone. On success it
// stores the platform id and status sent, applies statuses that arrived
// before the id, and records MessageSent (the message:sent webhook), in
// one transaction. A definitive refusal (a 4xx answer, a missing account or
// file) marks the message failed with the reason; a transient failure
// (429, 5xx, network) is returned for the queue to retry, and marks the
// message failed when lastAttempt.
func (s *Service) Deliver(ctx context.Context, orgID, messageID uuid.UUID, lastAttempt bool) error {
	octx := viewer.SystemContext(ctx, orgID)
	m, err := s.Client.Message.Get(octx, messageID)
	if ent.IsNotFound(err) {
		return nil // deleted with its contact
	}
	if err != nil {
		return err
	}
	if m.Direction != message.DirectionOutgoing || m.Status != message.StatusPending || m.ChatMessageID != nil {
		return nil
	}
	c, err := s.Client.Contact.Get(octx, m.ContactID)
	if err != nil {
		return err
	}
	res, err := s.sendToProvider(octx, m, c)
	if err != nil {
		reason, retry := failureReason(err)
		if retry && !lastAttempt {
			return err
		}
		s.log().Warn("message send failed", "message_id", m.ID, "reason", reason, "err", err)
		return s.markFailed(octx, m, reason)
	}
	return s.markSent(octx, m, c, res.MessageID)
}

// failureReason says why a send failed, in words safe to store and show
// on the message, and whether trying again may help. The platform's own
// answers are shown; a network failure or an internal error is named by
// its kind only (its text names internal addresses, such as the DNS
// resolver's): Deliver logs the error itself.
func failureReason(err error) (string, bool) {
	var (
		pe   *provider.Error
		perm *permanentError
	)
	if text, ok := provider.Unreachable(err); ok {
		return text, true
	}
	switch {
	case errors.As(err, &perm):
		return perm.reason, false
	case errors.As(err, &pe):
		return strings.TrimPrefix(pe.Error(), "provider: "), pe.Temporary()
	case errors.Is(err, provider.ErrInvalid):
		return strings.TrimPrefix(err.Error(), "provider: "), false
	case errors.Is(err, provider.ErrUnexpectedResponse):
		// Its text may quote a broken read of the answer.
		return "unexpected answer from the platform", false
	case provider.IsRetryable(err):
		return "the platform could not be reached", true
	}
	return "internal error", true
}

// sendToProvider builds the platform's message from the stored one and
// sends it from the message's account.
func (s *Service) sendToProvider(ctx context.Context, m *ent.Message, c *ent.Contact) (*provider.SendResult, error) {
	acc, err := s.providerAccount(ctx, m.ChatAccount)
	if err != nil {
		return nil, err
	}
	out, err := s.outgoing(ctx, acc, m)
	if err != nil {
		return nil, err
	}
	out.To = c.PhoneNumber
	return s.Provider.SendMessage(ctx, acc, out)
}

// providerAccount loads the credentials of the account named name.
func (s *Service) providerAccount(ctx context.Context, name string) (provider.Account, error) {
	a, err := s.Client.Account.Query().Where(account.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return provider.Account{}, permanent("account %q no longer exists", name)
	}
	if err != nil {
		return provider.Account{}, err
	}
	if len(a.AccessTokenEncrypted) == 0 {
		return provider.Account{}, permanent("account %q has no access token", name)
	}
	token, err := s.Secrets.Open(a.AccessTokenEncrypted)
	if err != nil {
		return provider.Account{}, permanent("the access token of account %q cannot be decrypted", name)
	}
	return provider.Account{PhoneID: a.PhoneID, BusinessID: a.BusinessID, AccessToken: string(token), APIVersion: a.APIVersion}, nil
}

// outgoing is the platform's form of a stored message (without recipient).
func (s *Service) outgoing(ctx context.Context, acc provider.Account, m *ent.Message) (provider.OutgoingMessage, error) {
	var out provider.OutgoingMessage
	switch m.MessageType {
	case TypeText:
		out.Text = &provider.Text{Body: contentString(m.Content, "body")}
	case TypeInteractive:
		return interactiveMessage(m.InteractiveData)
	case TypeTemplate:
		t, err := s.templateMessage(ctx, acc, m)
		out.Template = t
		return out, err
	case KindImage, KindVideo, KindAudio, KindDocument:
		id, err := s.uploadedMediaID(ctx, acc, m)
		if err != nil {
			return out, err
		}
		out.Media = &provider.Media{Kind: provider.MediaKind(m.MessageType), ID: id, Caption: contentString(m.Content, "body")}
		if m.MessageType == KindDocument {
			out.Media.Filename = m.MediaFilename
		}
	default:
		return out, permanent("messages of type %q cannot be sent", m.MessageType)
	}
	return out, nil
}

// interactiveMessage rebuilds the platform's interactive message from the
// stored interactive_data.
func interactiveMessage(data map[string]any) (provider.OutgoingMessage, error) {
	var in Interactive
	b, _ := json.Marshal(data)
	if err := json.Unmarshal(b, &in); err != nil {
		return provider.OutgoingMessage{}, permanent("the interactive message is malformed")
	}
	var out provider.OutgoingMessage
	switch in.Type {
	case InteractiveButton:
		rb := &provider.ReplyButtons{Body: in.Body}
		for _, b := range in.Buttons {
			rb.Buttons = append(rb.Buttons, provider.ReplyButton{ID: b.ID, Title: b.Title})
		}
		out.Buttons = rb
	case InteractiveCTAURL:
		out.CTAURL = &provider.CTAURL{Body: in.Body, DisplayText: in.ButtonText, URL: in.URL}
	case InteractiveProduct, InteractiveProductList:
		return productOutgoing(data)
	case InteractiveCallPermission:
		out.CallPermission = callPermissionOutgoing(in)
	case InteractiveFlow:
		if in.Flow == nil {
			return out, permanent("the flow message is malformed")
		}
		out.Flow = in.Flow.provider(in.Body)
	default:
		return out, permanent("interactive type %q cannot be sent", in.Type)
	}
	return out, nil
}

// templateMessage rebuilds the platform's template message from what the
// send stored: name, language, parameters and header media.
func (s *Service) templateMessage(ctx context.Context, acc provider.Account, m *ent.Message) (*provider.Template, error) {
	buttons := contentStrings(m.Content, "button_params")
	for k := range buttons {
		if _, err := strconv.Atoi(k); err != nil {
			return nil, permanent("template button parameter %q is malformed", k)
		}
	}
	t := templateComponents(contentString(m.Content, "template_name"), contentString(m.Content, "language"), TemplateParams{
		Body: contentStrings(m.Content, "template_params"), Header: contentStrings(m.Content, "header_params"), Buttons: buttons,
	})
	kind, isMedia := map[string]string{"IMAGE": KindImage, "VIDEO": KindVideo, "DOCUMENT": KindDocument}[contentString(m.Content, "header_type")]
	if !isMedia {
		return t, nil
	}
	id, err := s.uploadedMediaID(ctx, acc, m)
	if err != nil {
		return nil, err
	}
	t.HeaderMedia = &provider.Media{Kind: provider.MediaKind(kind), ID: id}
	if kind == KindDocument {
		t.HeaderMedia.Filename = m.MediaFilename
	}
	return t, nil
}

// uploadedMediaID returns the platform media id of the message's file,
// uploading it from the media store the first time; the id is kept in the
// content so that a retried send does not upload again.
func (s *Service) uploadedMediaID(ctx context.Context, acc provider.Account, m *ent.Message) (string, error) {
	if id := contentString(m.Content, "media_id"); id != "" {
		return id, nil
	}
	key, ok := media.KeyFromURL(m.MediaURL)
	if !ok || s.Media == nil {
		return "", permanent("the message has no media file to send")
	}
	f, err := s.Media.Open(m.OrganizationID, key)
	if errors.Is(err, media.ErrNotFound) {
		return "", permanent("the media file of the message is missing")
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	name := m.MediaFilename
	if name == "" {
		name = "file"
	}
	id, err := s.Provider.UploadMedia(ctx, acc, name, m.MediaMimeType, f)
	if err != nil {
		return "", err
	}
	content := make(map[string]any, len(m.Content)+1)
	for k, v := range m.Content {
		content[k] = v
	}
	content["media_id"] = id
	if err := s.Client.Message.UpdateOneID(m.ID).SetContent(content).Exec(ctx); err != nil {
		s.log().Warn("keeping the uploaded media id", "message_id", m.ID, "err", err)
	} else {
		m.Content = content
	}
	return id, nil
}

// markSent stores the platform id and status sent, applies the statuses
// parked for that id and records MessageSent, in one transaction. Should
// its webhook deliveries fail to be written, the id is stored with
// MessageStatusChanged instead: losing the webhook is better than sending
// twice.
func (s *Service) markSent(ctx context.Context, m *ent.Message, c *ent.Contact, wamid string) error {
	err := s.storeSent(ctx, m, c, wamid, events.MessageSent)
	if err != nil && !errors.Is(err, errNotPending) {
		s.log().Error("recording a sent message with its webhook; recording it without", "message_id", m.ID, "err", err)
		err = s.storeSent(ctx, m, c, wamid, events.MessageStatusChanged)
	}
	if errors.Is(err, errNotPending) {
		return nil
	}
	if err != nil {
		return err
	}
	// A status parked while the transaction ran is applied now.
	changed, err := ApplyParked(ctx, s.Client, wamid)
	if err != nil {
		s.log().Warn("applying parked statuses", "message_id", m.ID, "err", err)
	}
	if !changed {
		return nil
	}
	if late, err := s.Client.Message.Get(ctx, m.ID); err == nil {
		s.record(ctx, events.Event{Type: events.MessageStatusChanged, OrgID: m.OrganizationID, Payload: NewMessageEvent(late)})
	}
	return nil
}

// record records events of a change already stored; a failure is logged
// (the events have no webhook, so only a live notification is lost).
func (s *Service) record(ctx context.Context, evs ...events.Event) {
	if err := s.Events.Record(ctx, evs...); err != nil {
		s.log().Warn("recording events", "err", err)
	}
}

// errNotPending: the message left pending meanwhile (another run sent it).
var errNotPending = errors.New("messaging: message is no longer pending")

func (s *Service) storeSent(ctx context.Context, m *ent.Message, c *ent.Contact, wamid string, typ events.Type) error {
	tx, err := s.Client.Tx(ctx)
	if err != nil {
		return err
	}
	tctx := ent.NewTxContext(ctx, tx)
	err = func() error {
		n, err := tx.Message.Update().
			Where(message.ID(m.ID), message.StatusEQ(message.StatusPending), message.ChatMessageIDIsNil()).
			SetChatMessageID(wamid).SetStatus(message.StatusSent).SetErrorMessage("").Save(tctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errNotPending
		}
		if _, err := ApplyParked(tctx, tx.Client(), wamid); err != nil {
			return err
		}
		sent, err := tx.Message.Get(tctx, m.ID)
		if err != nil {
			return err
		}
		return s.Events.Record(tctx, events.Event{Type: typ, OrgID: m.OrganizationID, Payload: sentEvent{
			MessageEvent: NewMessageEvent(sent), ChatAccount: sent.ChatAccount,
			PhoneNumber: c.PhoneNumber, SentByUserID: sent.SentByUserID,
		}})
	}()
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// markFailed records a failed send with its reason and its
// MessageStatusChanged event.
func (s *Service) markFailed(ctx context.Context, m *ent.Message, reason string) error {
	n, err := s.Client.Message.Update().
		Where(message.ID(m.ID), message.StatusEQ(message.StatusPending), message.ChatMessageIDIsNil()).
		SetStatus(message.StatusFailed).SetErrorMessage(truncate(reason, maxErrorMessage)).Save(ctx)
	if err != nil || n == 0 {
		return err
	}
	if failed, err := s.Client.Message.Get(ctx, m.ID); err == nil {
		s.record(ctx, events.Event{Type: events.MessageStatusChanged, OrgID: m.OrganizationID, Payload: NewMessageEvent(failed)})
	}
	return nil
}

func contentString(content map[string]any, key string) string {
	s, _ := content[key].(string)
	return s
}

// contentStrings reads a stored map of strings.
func contentStrings(content map[string]any, key string) map[string]string {
	raw, _ := content[key].(map[string]any)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}
