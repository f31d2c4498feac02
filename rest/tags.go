package rest

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/contacts"
	"switchboard/ent"
	"switchboard/tags"
)

// tagJSON is a tag of the organization's catalogue.
type tagJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Color     string    `json:"color"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func presentTag(t *ent.Tag) tagJSON {
	return tagJSON{ID: t.ID, Name: t.Name, Color: t.Color, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

// createTagBody is the JSON of createTag; the bound is tags'
// (TestBodyTagsMatchTheDomain).
type createTagBody struct {
	Name  *string `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"64" example:"vip" description:"Unique in the organization."`
	Color *string `json:"color" enum:"[\"\",\"blue\",\"red\",\"green\",\"yellow\",\"purple\",\"gray\"]" description:"Empty or absent: gray."`
}

// updateTagBody is the JSON of updateTag: absent or null fields keep their
// value.
type updateTagBody struct {
	Name  *string `json:"name" minLength:"1" maxLength:"64" description:"A new name, replaced on every contact that carries the tag."`
	Color *string `json:"color" enum:"[\"\",\"blue\",\"red\",\"green\",\"yellow\",\"purple\",\"gray\"]" description:"Empty: kept."`
}

// tagName is the tag named by the path: the rest of the path after
// /api/tags/, so that a name may hold a slash.
func tagName(c *gin.Context) (string, error) {
	name := strings.TrimPrefix(c.Param("name"), "/")
	if strings.TrimSpace(name) == "" {
		return "", apperr.Invalidf("a tag name is required in the path")
	}
	return name, nil
}

func (a *API) listTags(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	pg, err := a.R.Tags.List(ctx(c), tags.Filter{Search: queryOf[searchQuery](c).Search}, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]tagJSON, len(pg.Tags))
	for i, t := range pg.Tags {
		out[i] = presentTag(t)
	}
	return http.StatusOK, listPayload("tags", out, pg.Total, p), nil
}

func (a *API) createTag(c *gin.Context) (int, any, error) {
	var b createTagBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Name == nil {
		return 0, nil, apperr.Invalidf("name is required")
	}
	t, err := a.R.Tags.Create(ctx(c), tags.CreateInput{Name: *b.Name, Color: b.Color})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentTag(t), nil
}

func (a *API) updateTag(c *gin.Context) (int, any, error) {
	name, err := tagName(c)
	if err != nil {
		return 0, nil, err
	}
	var b updateTagBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	t, err := a.R.Tags.Update(ctx(c), name, tags.UpdateInput{Name: b.Name, Color: b.Color})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentTag(t), nil
}

func (a *API) deleteTag(c *gin.Context) (int, any, error) {
	name, err := tagName(c)
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Tags.Delete(ctx(c), name); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Tag deleted"}, nil
}

// setContactTags replaces a contact's tags (the web client's tag editor).
// setContactTagsBody is the JSON body of setContactTags.
type setContactTagsBody struct {
	Tags []string `json:"tags" required:"true" nullable:"false" description:"Replaces the tags: names of 1 to 64 characters; at most 50 once repeats are dropped."`
}

func (a *API) setContactTags(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b setContactTagsBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Tags == nil {
		return 0, nil, apperr.Invalidf("tags is required (an array of strings)")
	}
	ct, err := a.R.Contacts.Update(ctx(c), id, contacts.UpdateInput{Tags: b.Tags})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentContact(ct, time.Now()), nil
}

// tagRoutes: everyone who reads contacts sees the catalogue; changing it
// rewrites contacts, so it needs contacts:update. A tag is named by the
// rest of the path, which may hold a slash.
func (a *API) tagRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/tags", Op: "tags", Query: paged(maxPageSize, searchQuery{}), Out: list("tags", tagJSON{}), Handle: a.listTags},
		{Method: post, Path: "/api/tags", Op: "createTag", Status: http.StatusCreated, In: createTagBody{}, Out: tagJSON{}, Handle: a.createTag},
		{Method: put, Path: "/api/tags/*name", Op: "updateTag", In: updateTagBody{}, Out: tagJSON{}, Handle: a.updateTag},
		{Method: del, Path: "/api/tags/*name", Op: "deleteTag", Out: messageData{}, Handle: a.deleteTag},
		{Method: put, Path: "/api/contacts/:id/tags", Op: "setContactTags", In: setContactTagsBody{}, Out: contactJSON{}, Handle: a.setContactTags},
	}
}
