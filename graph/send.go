package graph

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/messaging"
)

// SendMessage stores a free-form message (text or interactive) for a
// contact and queues its send. Errors: invalid (content, a closed
// customer service window, no account to send from), not_found (contact).
func (r *Resolver) SendMessage(ctx context.Context, contactID uuid.UUID, in messaging.Outgoing) (*ent.Message, error) {
	return r.Messaging.Send(ctx, contactID, in)
}

// SendTemplateMessage stores a template message (creating the contact of
// a new phone number) and queues its send. Errors: invalid (inputs,
// parameters, header media, a template of another account or not
// approved, no account), not_found (contact, template).
func (r *Resolver) SendTemplateMessage(ctx context.Context, in messaging.TemplateInput) (*ent.Message, error) {
	return r.Messaging.SendTemplate(ctx, in)
}

// SendMediaMessage stores a media message with its file and queues its
// send. Errors: invalid (type, caption, a file of the wrong kind or over
// the limit, a closed customer service window, no account), not_found
// (contact).
func (r *Resolver) SendMediaMessage(ctx context.Context, in messaging.MediaInput) (*ent.Message, error) {
	return r.Messaging.SendMedia(ctx, in)
}

// MarkMessageRead is the spec's PUT /api/messages/{id}/read, which is not
// implemented: reading a conversation marks it read (MarkContactRead).
// Errors: not_found (message), not_implemented otherwise.
func (r *Resolver) MarkMessageRead(ctx context.Context, id uuid.UUID) error {
	if _, err := r.db(ctx).Message.Get(ctx, id); err != nil {
		return apperr.Wrap(err, "message")
	}
	return apperr.New(apperr.NotImplemented, "Not implemented yet")
}
