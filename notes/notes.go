// Package notes owns contact notes: internal notes members write on a
// contact's conversation. It bounds their content, decides who may change
// one (its author, or a member who may update contacts), and announces
// every change as a live event once it is committed.
package notes

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/contactnote"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/valid"
)

// Bounds of notes and of a page of them.
const (
	MaxContentLength = 4096
	DefaultPageSize  = 30
	MaxPageSize      = 100
)

// moderatePermission lets a member change notes of others.
const moderatePermission = "contacts:update"

// Service is the notes' operations.
type Service struct {
	Client *ent.Client
	// Events carries the live events; nil publishes none.
	Events *events.Bus
}

// Page is a page of a contact's notes, oldest first. Total counts all the
// contact's notes; HasMore tells that older ones precede the page.
type Page struct {
	Notes   []*ent.ContactNote
	Total   int
	HasMore bool
}

// Payload is a note as live events carry it.
type Payload struct {
	ID            uuid.UUID  `json:"id"`
	ContactID     uuid.UUID  `json:"contact_id"`
	CreatedByID   *uuid.UUID `json:"created_by_id"`
	CreatedByName string     `json:"created_by_name"`
	Content       string     `json:"content"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// DeletedPayload names a deleted note.
type DeletedPayload struct {
	ID        uuid.UUID `json:"id"`
	ContactID uuid.UUID `json:"contact_id"`
}

// AuthorName is the full name of the note's author ("" when the author is
// gone or not loaded).
func AuthorName(n *ent.ContactNote) string {
	if a := n.Edges.Author; a != nil {
		return a.FullName
	}
	return ""
}

// NewPayload renders a note (with its author loaded) for events.
func NewPayload(n *ent.ContactNote) Payload {
	return Payload{
		ID: n.ID, ContactID: n.ContactID, CreatedByID: n.AuthorID, CreatedByName: AuthorName(n),
		Content: n.Content, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt,
	}
}

// List returns the limit notes of the contact before the note before (the
// newest when before is nil), oldest first. Errors: invalid (limit below
// 1), not_found (the contact, or a before that is not one of its notes).
func (s *Service) List(ctx context.Context, contactID uuid.UUID, before *uuid.UUID, limit int) (*Page, error) {
	if limit < 1 {
		return nil, apperr.Invalidf("limit must be a positive integer")
	}
	limit = min(limit, MaxPageSize)
	db := database.ClientFor(ctx, s.Client)
	if _, err := db.Contact.Get(ctx, contactID); err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	q := db.ContactNote.Query().Where(contactnote.ContactID(contactID))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "note")
	}
	if before != nil {
		b, err := db.ContactNote.Query().Where(contactnote.ID(*before), contactnote.ContactID(contactID)).Only(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "note")
		}
		q = q.Where(contactnote.Or(
			contactnote.CreatedAtLT(b.CreatedAt),
			contactnote.And(contactnote.CreatedAt(b.CreatedAt), contactnote.IDLT(b.ID)),
		))
	}
	ns, err := q.WithAuthor().
		Order(ent.Desc(contactnote.FieldCreatedAt), ent.Desc(contactnote.FieldID)).
		Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "note")
	}
	page := &Page{Total: total}
	if len(ns) > limit {
		page.HasMore = true
		ns = ns[:limit]
	}
	for i, j := 0, len(ns)-1; i < j; i, j = i+1, j-1 {
		ns[i], ns[j] = ns[j], ns[i]
	}
	page.Notes = ns
	return page, nil
}

// Create writes a note of the viewer on the contact. Errors:
// unauthenticated (no user behind the viewer), invalid (content),
// not_found (the contact).
func (s *Service) Create(ctx context.Context, contactID uuid.UUID, text string) (*ent.ContactNote, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "a note needs a user as its author")
	}
	c, err := valid.RequiredText("content", text, MaxContentLength)
	if err != nil {
		return nil, err
	}
	var out *ent.ContactNote
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		if _, err := db.Contact.Get(ctx, contactID); err != nil {
			return apperr.Wrap(err, "contact")
		}
		n, err := db.ContactNote.Create().SetContactID(contactID).SetAuthorID(v.UserID).SetContent(c).Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "note")
		}
		if out, err = s.load(ctx, db, n.ID); err != nil {
			return err
		}
		return s.record(ctx, events.ContactNoteCreated, out.OrganizationID, NewPayload(out))
	})
	return out, err
}

// Update replaces the content of a note of the contact. Errors: invalid
// (content), not_found (the note, or not one of the contact's), forbidden
// (neither its author nor allowed to update contacts).
func (s *Service) Update(ctx context.Context, contactID, noteID uuid.UUID, text string) (*ent.ContactNote, error) {
	c, err := valid.RequiredText("content", text, MaxContentLength)
	if err != nil {
		return nil, err
	}
	var out *ent.ContactNote
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		n, err := s.changeable(ctx, db, contactID, noteID, "edit")
		if err != nil {
			return err
		}
		if err := db.ContactNote.UpdateOne(n).SetContent(c).Exec(ctx); err != nil {
			return apperr.Wrap(err, "note")
		}
		if out, err = s.load(ctx, db, n.ID); err != nil {
			return err
		}
		return s.record(ctx, events.ContactNoteUpdated, out.OrganizationID, NewPayload(out))
	})
	return out, err
}

// Delete removes a note of the contact. Errors: not_found, forbidden (as
// Update).
func (s *Service) Delete(ctx context.Context, contactID, noteID uuid.UUID) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		n, err := s.changeable(ctx, db, contactID, noteID, "delete")
		if err != nil {
			return err
		}
		if err := db.ContactNote.DeleteOne(n).Exec(ctx); err != nil {
			return apperr.Wrap(err, "note")
		}
		return s.record(ctx, events.ContactNoteDeleted, n.OrganizationID, DeletedPayload{ID: n.ID, ContactID: n.ContactID})
	})
}

// changeable loads a note of the contact that the viewer may change.
func (s *Service) changeable(ctx context.Context, db *ent.Client, contactID, noteID uuid.UUID, verb string) (*ent.ContactNote, error) {
	n, err := db.ContactNote.Query().Where(contactnote.ID(noteID), contactnote.ContactID(contactID)).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "note")
	}
	v := viewer.FromContext(ctx)
	if n.AuthorID != nil && *n.AuthorID == v.UserID {
		return n, nil
	}
	if err := access.Require(v, moderatePermission); err != nil {
		return nil, apperr.Forbiddenf("only the note's author or a member who may update contacts can %s it", verb)
	}
	return n, nil
}

func (s *Service) load(ctx context.Context, db *ent.Client, id uuid.UUID) (*ent.ContactNote, error) {
	n, err := db.ContactNote.Query().Where(contactnote.ID(id)).WithAuthor().Only(ctx)
	return n, apperr.Wrap(err, "note")
}

// record records a note's domain event in the operation's transaction
// (the one path of every event: its /ws frame goes out after the commit).
func (s *Service) record(ctx context.Context, typ events.Type, orgID uuid.UUID, payload any) error {
	if s.Events == nil {
		return nil
	}
	return s.Events.Record(ctx, events.Event{Type: typ, OrgID: orgID, Payload: payload})
}
