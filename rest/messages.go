package rest

import (
	"errors"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/graph"
	"switchboard/messaging"
)

// messageJSON is the spec's Message.
type messageJSON struct {
	ID              uuid.UUID      `json:"id"`
	ContactID       uuid.UUID      `json:"contact_id"`
	Direction       string         `json:"direction"`
	MessageType     string         `json:"message_type"`
	Content         map[string]any `json:"content"`
	Status          string         `json:"status"`
	ChatMessageID   *string        `json:"chat_message_id"`
	ChatAccount     string         `json:"chat_account"`
	MediaURL        string         `json:"media_url,omitempty"`
	MediaMimeType   string         `json:"media_mime_type,omitempty"`
	MediaFilename   string         `json:"media_filename,omitempty"`
	InteractiveData map[string]any `json:"interactive_data,omitempty"`
	ErrorMessage    string         `json:"error_message,omitempty"`
	CreatedAt       time.Time      `json:"created_at"`
	UpdatedAt       time.Time      `json:"updated_at"`
}

func presentMessage(m *ent.Message) messageJSON {
	out := messageJSON{
		ID: m.ID, ContactID: m.ContactID, Direction: string(m.Direction), MessageType: m.MessageType,
		Content: m.Content, Status: string(m.Status), ChatMessageID: m.ChatMessageID, ChatAccount: m.ChatAccount,
		MediaURL: m.MediaURL, MediaMimeType: m.MediaMimeType, MediaFilename: m.MediaFilename,
		ErrorMessage: m.ErrorMessage, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
	}
	if m.Content == nil {
		out.Content = map[string]any{}
	}
	if m.MessageType == "interactive" {
		out.InteractiveData = m.InteractiveData
	}
	return out
}

// messageRoutes: the template and media sends read files (uploads,
// header_media_url downloads) before they store anything, so they run
// without the request transaction and open their own once the file is
// saved; no transaction stays open while a client uploads.
func (a *API) messageRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/contacts/:id/messages", Op: "messages", Query: messagesQuery{}, Out: messagesData{}, Handle: a.listMessages},
		{Method: post, Path: "/api/contacts/:id/messages", Op: "sendMessage", Status: http.StatusCreated, In: sendMessageBody{}, Out: messageJSON{}, Handle: a.sendMessage},
		{Method: post, Path: "/api/messages/template", Op: "sendTemplateMessage", Status: http.StatusCreated, In: bodies{templateBody{}, templateMessageForm{}}, Out: messageJSON{}, Handle: a.sendTemplate},
		{Method: post, Path: "/api/messages/media", Op: "sendMediaMessage", Status: http.StatusCreated, In: mediaMessageForm{}, Out: messageJSON{}, Handle: a.sendMedia},
		{Method: put, Path: "/api/messages/:id/read", Op: "markMessageRead", Errors: []int{http.StatusNotImplemented}, Out: statusData{}, Handle: a.markMessageRead},
		{Method: get, Path: "/api/messages/search", Op: "searchMessages", Query: messageSearchQuery{}, Out: messageSearchData{}, Handle: a.searchMessages},
	}
}

// messageSearchQuery is GET /api/messages/search's query (docs/api.md,
// "Searching messages").
type messageSearchQuery struct {
	Q      string `query:"q" required:"true" maxLength:"200" description:"Web-search syntax: words (all must occur), \"a quoted phrase\", OR between alternatives, -word to exclude. Whole words, case-insensitive, any language (the embedded SQLite mode matches substrings)."`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20" description:"Hits to return."`
	Cursor string `query:"cursor" maxLength:"64" description:"The next_cursor of the previous page: read the hits after it."`
}

// messageSearchData is a page of hits, newest first; next_cursor reads
// the next page while has_more. A page may hold fewer hits than the limit,
// none maybe, while has_more: the search walked as long as it may.
type messageSearchData struct {
	Results    []messageSearchHitJSON `json:"results"`
	HasMore    bool                   `json:"has_more" description:"More hits may follow: read on with next_cursor. A page may hold fewer hits than limit, none maybe, while has_more is true (words that many messages hold but rarely together are searched a stretch of messages at a time)."`
	NextCursor *string                `json:"next_cursor" description:"Read the hits after this page (as cursor); null when the page is empty and nothing follows."`
}

// messageSearchHitJSON is one hit: the message, its contact, and a
// snippet of HTML-escaped text in which <mark>...</mark>, and nothing
// else, surround each matched word.
type messageSearchHitJSON struct {
	Message messageJSON       `json:"message"`
	Contact searchContactJSON `json:"contact"`
	Snippet string            `json:"snippet" description:"HTML-escaped text; <mark> and </mark> (the only markup) surround each matched word."`
	Cursor  string            `json:"cursor" description:"Read the hits after this one (as cursor)."`
}

// searchContactJSON is the contact of a hit, as an inbox row names it.
type searchContactJSON struct {
	ID          uuid.UUID `json:"id"`
	Name        string    `json:"name"`
	ProfileName string    `json:"profile_name"`
	PhoneNumber string    `json:"phone_number"`
}

func (a *API) searchMessages(c *gin.Context) (int, any, error) {
	q := queryOf[messageSearchQuery](c)
	page, err := a.R.Messaging.Search(ctx(c), q.Q, q.Limit, q.Cursor)
	if err != nil {
		return 0, nil, err
	}
	out := messageSearchData{Results: make([]messageSearchHitJSON, len(page.Edges)),
		HasMore: page.PageInfo.HasNextPage, NextCursor: page.PageInfo.EndCursor}
	for i, e := range page.Edges {
		ct := e.Node.Contact
		out.Results[i] = messageSearchHitJSON{
			Message: presentMessage(e.Node.Message), Snippet: e.Node.Snippet, Cursor: e.Cursor,
			Contact: searchContactJSON{ID: ct.ID, Name: ct.Name, ProfileName: ct.ProfileName, PhoneNumber: ct.PhoneNumber},
		}
	}
	return http.StatusOK, out, nil
}

func (a *API) markMessageRead(c *gin.Context) (int, any, error) {
	return idAction(a.R.Messaging.MarkRead, nil)(c)
}

// listMessages answers {messages, total} for the newest page and
// {messages, has_more} for a page before a cursor.
func (a *API) listMessages(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	q := queryOf[messagesQuery](c)
	page, err := a.R.Messaging.History(ctx(c), id, q.BeforeID, q.Account, q.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]messageJSON, len(page.Messages))
	for i, m := range page.Messages {
		out[i] = presentMessage(m)
	}
	if q.BeforeID != nil {
		return http.StatusOK, messagesData{Messages: out, HasMore: &page.HasMore}, nil
	}
	return http.StatusOK, messagesData{Messages: out, Total: &page.Total}, nil
}

// sendMessageBody is the JSON of POST /api/contacts/{id}/messages.
type sendMessageBody struct {
	Type    string `json:"type" required:"true" enum:"text,interactive" description:"Templates go to /api/messages/template, media to /api/messages/media."`
	Content *struct {
		Body string `json:"body" description:"The text: required for a text message (1 to 4096 characters)."`
	} `json:"content" description:"Required for a text message."`
	Interactive *interactiveBody `json:"interactive" description:"Required for an interactive message."`
	ChatAccount string           `json:"chat_account" maxLength:"255" description:"The sending account; default: the organization's default outgoing account, else the contact's."`
}

// interactiveBody is an interactive message: {type: button, body,
// buttons[{id, title}]} or {type: cta_url, body, button_text, url}.
// Its fields are checked for an interactive message only (type
// interactive), so they are described rather than declared.
type interactiveBody struct {
	Type    string `json:"type" description:"button or cta_url."`
	Body    string `json:"body" description:"1 to 1024 characters."`
	Buttons []struct {
		ID    string `json:"id" description:"1 to 256 characters, unique."`
		Title string `json:"title" description:"1 to 20 characters."`
	} `json:"buttons" description:"A button message's 1 to 3 reply buttons."`
	ButtonText string `json:"button_text" description:"A cta_url message's button, 1 to 20 characters."`
	URL        string `json:"url" description:"A cta_url message's absolute http or https URL, at most 2000 characters."`
}

func (b *sendMessageBody) outgoing() messaging.Outgoing {
	o := messaging.Outgoing{Type: b.Type, Account: b.ChatAccount}
	if b.Content != nil {
		o.Body = b.Content.Body
	}
	if in := b.Interactive; in != nil {
		o.Interactive = &messaging.Interactive{Type: in.Type, Body: in.Body, ButtonText: in.ButtonText, URL: in.URL}
		for _, btn := range in.Buttons {
			o.Interactive.Buttons = append(o.Interactive.Buttons, messaging.Button{ID: btn.ID, Title: btn.Title})
		}
	}
	return o
}

func (a *API) sendMessage(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b sendMessageBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	m, err := a.R.Messaging.Send(ctx(c), id, b.outgoing())
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentMessage(m), nil
}

// templateBody is the JSON of POST /api/messages/template; a multipart
// body carries the same fields as form values (the parameter objects as
// JSON text) plus the header_file file.
type templateBody struct {
	ContactID           string         `json:"contact_id" format:"uuid" description:"contact_id or phone_number is required, not both."`
	PhoneNumber         string         `json:"phone_number" description:"contact_id or phone_number is required, not both: a new number becomes a contact."`
	TemplateName        string         `json:"template_name" description:"template_name or template_id is required, not both."`
	TemplateID          string         `json:"template_id" format:"uuid" description:"template_name or template_id is required, not both."`
	TemplateParams      map[string]any `json:"template_params" description:"The body's variables; values are strings, numbers or booleans."`
	HeaderParams        map[string]any `json:"header_params" description:"The TEXT header's variable."`
	ButtonParams        map[string]any `json:"button_params" description:"The dynamic URL buttons' variables, by button index (\"0\", \"1\", ...)."`
	AccountName         string         `json:"account_name" description:"The sending account; default: the template's."`
	HeaderMediaID       string         `json:"header_media_id" description:"A media header's file: one of header_media_id, header_media_url and (multipart) header_file."`
	HeaderMediaURL      string         `json:"header_media_url" description:"A media header's file: one of header_media_id, header_media_url and (multipart) header_file."`
	HeaderMediaFilename string         `json:"header_media_filename"`
}

func (b *templateBody) input() (messaging.TemplateInput, error) {
	in := messaging.TemplateInput{
		PhoneNumber: b.PhoneNumber, TemplateName: b.TemplateName, Account: b.AccountName,
		HeaderMediaID: b.HeaderMediaID, HeaderMediaURL: b.HeaderMediaURL, HeaderMediaFilename: b.HeaderMediaFilename,
	}
	var err error
	if in.ContactID, err = optionalUUID("contact_id", strings.TrimSpace(b.ContactID)); err != nil {
		return in, err
	}
	if in.TemplateID, err = optionalUUID("template_id", strings.TrimSpace(b.TemplateID)); err != nil {
		return in, err
	}
	if in.TemplateParams, err = graph.StringValues("template_params", b.TemplateParams); err != nil {
		return in, err
	}
	if in.HeaderParams, err = graph.StringValues("header_params", b.HeaderParams); err != nil {
		return in, err
	}
	in.ButtonParams, err = graph.StringValues("button_params", b.ButtonParams)
	return in, err
}

func (a *API) sendTemplate(c *gin.Context) (int, any, error) {
	var (
		b    templateBody
		file *messaging.Upload
	)
	if isMultipart(c) {
		form, err := readMultipart(c)
		if err != nil {
			return 0, nil, err
		}
		defer form.RemoveAll()
		if err := b.fromForm(form); err != nil {
			return 0, nil, err
		}
		if file, err = formFile(form, "header_file"); err != nil {
			return 0, nil, err
		}
		if file != nil {
			defer closeUpload(file)
		}
	} else if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	in, err := b.input()
	if err != nil {
		return 0, nil, err
	}
	in.HeaderFile = file
	m, err := a.R.Messaging.SendTemplate(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentMessage(m), nil
}

// fromForm reads the template fields of a multipart form.
func (b *templateBody) fromForm(form *multipart.Form) error {
	value := func(name string) string { return formValue(form, name) }
	b.ContactID, b.PhoneNumber = value("contact_id"), value("phone_number")
	b.TemplateName, b.TemplateID = value("template_name"), value("template_id")
	b.AccountName, b.HeaderMediaID = value("account_name"), value("header_media_id")
	b.HeaderMediaURL, b.HeaderMediaFilename = value("header_media_url"), value("header_media_filename")
	for name, dst := range map[string]*map[string]any{
		"template_params": &b.TemplateParams, "header_params": &b.HeaderParams, "button_params": &b.ButtonParams,
	} {
		raw := strings.TrimSpace(value(name))
		if raw == "" {
			continue
		}
		if err := decodeJSON([]byte(raw), dst); err != nil {
			return apperr.Invalidf("%s must be a JSON object of strings", name)
		}
	}
	return nil
}

func (a *API) sendMedia(c *gin.Context) (int, any, error) {
	form, err := readMultipart(c)
	if err != nil {
		return 0, nil, err
	}
	defer form.RemoveAll()
	contactID, err := optionalUUID("contact_id", strings.TrimSpace(formValue(form, "contact_id")))
	if err != nil {
		return 0, nil, err
	}
	if contactID == nil {
		return 0, nil, apperr.Invalidf("contact_id is required")
	}
	file, err := formFile(form, "file")
	if err != nil {
		return 0, nil, err
	}
	if file == nil {
		return 0, nil, apperr.Invalidf("file is required")
	}
	defer closeUpload(file)
	m, err := a.R.Messaging.SendMedia(ctx(c), messaging.MediaInput{
		ContactID: *contactID, Kind: formValue(form, "type"), Caption: formValue(form, "caption"),
		Account: formValue(form, "chat_account"), File: *file,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentMessage(m), nil
}

// maxMediaBody bounds a media or template request: the largest file
// (a 100 MB document) plus the form fields.
const maxMediaBody = messaging.MaxUploadBytes + maxMultipartOverhead

// multipartMemory is how much of the files a multipart form keeps in
// memory; the rest waits in temporary files until the request ends.
const multipartMemory = 1 << 20

func isMultipart(c *gin.Context) bool {
	return strings.HasPrefix(strings.ToLower(c.GetHeader("Content-Type")), "multipart/form-data")
}

// readMultipart parses a multipart/form-data body of at most maxMediaBody
// bytes. The caller removes the form's temporary files.
func readMultipart(c *gin.Context) (*multipart.Form, error) {
	tooLarge := apperr.Invalidf("request body too large (max %d MB file plus form fields)", messaging.MaxUploadBytes>>20)
	if c.Request.ContentLength > maxMediaBody {
		return nil, tooLarge
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxMediaBody)
	err := c.Request.ParseMultipartForm(multipartMemory)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge
	case errors.Is(err, http.ErrNotMultipart):
		return nil, apperr.Invalidf("request must be multipart/form-data")
	case err != nil:
		return nil, apperr.Invalidf("malformed multipart body")
	}
	return c.Request.MultipartForm, nil
}

// formValue is the first value of a form field ("" when absent).
func formValue(form *multipart.Form, name string) string {
	if vs := form.Value[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// formFile opens the first file of a form field; nil when absent.
func formFile(form *multipart.Form, name string) (*messaging.Upload, error) {
	fhs := form.File[name]
	if len(fhs) == 0 {
		return nil, nil
	}
	f, err := fhs[0].Open()
	if err != nil {
		return nil, apperr.Invalidf("could not read %s", name)
	}
	return &messaging.Upload{Filename: fhs[0].Filename, Content: f, Size: fhs[0].Size}, nil
}

func closeUpload(u *messaging.Upload) {
	if c, ok := u.Content.(interface{ Close() error }); ok {
		_ = c.Close()
	}
}
