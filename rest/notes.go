package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/notes"
)

// noteJSON is an internal note on a contact.
type noteJSON struct {
	ID            uuid.UUID  `json:"id"`
	ContactID     uuid.UUID  `json:"contact_id"`
	CreatedByID   *uuid.UUID `json:"created_by_id"`
	CreatedByName string     `json:"created_by_name"`
	Content       string     `json:"content"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

func presentNote(n *ent.ContactNote) noteJSON {
	return noteJSON{
		ID: n.ID, ContactID: n.ContactID, CreatedByID: n.AuthorID, CreatedByName: notes.AuthorName(n),
		Content: n.Content, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt,
	}
}

// noteBody is the JSON of note create and update; the bound is notes'
// (TestBodyTagsMatchTheDomain).
type noteBody struct {
	Content *string `json:"content" required:"true" nullable:"false" minLength:"1" maxLength:"4096" example:"Called back; prefers email."`
}

func (b noteBody) content() (string, error) {
	if b.Content == nil {
		return "", apperr.Invalidf("content is required")
	}
	return *b.Content, nil
}

func (a *API) listNotes(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	q := queryOf[notesQuery](c)
	pg, err := a.R.Notes.List(ctx(c), id, q.Before, q.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]noteJSON, len(pg.Notes))
	for i, n := range pg.Notes {
		out[i] = presentNote(n)
	}
	return http.StatusOK, notesData{Notes: out, Total: pg.Total, HasMore: pg.HasMore}, nil
}

func (a *API) createNote(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b noteBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	text, err := b.content()
	if err != nil {
		return 0, nil, err
	}
	n, err := a.R.Notes.Create(ctx(c), id, text)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentNote(n), nil
}

func (a *API) updateNote(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	noteID, err := pathUUID(c, "note_id")
	if err != nil {
		return 0, nil, err
	}
	var b noteBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	text, err := b.content()
	if err != nil {
		return 0, nil, err
	}
	n, err := a.R.Notes.Update(ctx(c), id, noteID, text)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentNote(n), nil
}

func (a *API) deleteNote(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	noteID, err := pathUUID(c, "note_id")
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Notes.Delete(ctx(c), id, noteID); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Note deleted"}, nil
}

// noteRoutes: those who read contacts read their notes; whoever may write
// in a conversation (messages:create, Agents included) writes notes on it.
// Changing or deleting a note is further limited by the operation to its
// author or a member holding contacts:update.
func (a *API) noteRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/contacts/:id/notes", Op: "contactNotes", Query: notesQuery{}, Out: notesData{}, Handle: a.listNotes},
		{Method: post, Path: "/api/contacts/:id/notes", Op: "createContactNote", Status: http.StatusCreated, In: noteBody{}, Out: noteJSON{}, Handle: a.createNote},
		{Method: put, Path: "/api/contacts/:id/notes/:note_id", Op: "updateContactNote", In: noteBody{}, Out: noteJSON{}, Handle: a.updateNote},
		{Method: del, Path: "/api/contacts/:id/notes/:note_id", Op: "deleteContactNote", Out: messageData{}, Handle: a.deleteNote},
	}
}
