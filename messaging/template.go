package messaging

import (
	"context"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/template"
	"switchboard/internal/valid"
	"switchboard/provider"
	"switchboard/templates"
)

// TypeTemplate is the message type of template messages.
const TypeTemplate = "template"

// statusApproved is the only template status the platform sends.
const statusApproved = "APPROVED"

// Limits of template parameters.
const (
	maxParamText     = 1024
	maxTemplateField = 512
)

// TemplateInput is a template message. One of ContactID and PhoneNumber
// names the recipient (a new phone number becomes a contact); one of
// TemplateID and TemplateName names the template. TemplateParams fill the
// body variables by name ("1", "2", ... or the named variables),
// HeaderParams the one variable of a TEXT header, ButtonParams the
// variable of dynamic URL buttons by button index ("0", "1", ...). A media
// header takes one of HeaderMediaID (a platform media id), HeaderMediaURL
// (downloaded) and HeaderFile; documents need HeaderMediaFilename.
type TemplateInput struct {
	ContactID           *uuid.UUID
	PhoneNumber         string
	TemplateID          *uuid.UUID
	TemplateName        string
	TemplateParams      map[string]string
	HeaderParams        map[string]string
	ButtonParams        map[string]string
	Account             string
	HeaderMediaID       string
	HeaderMediaURL      string
	HeaderMediaFilename string
	HeaderFile          *Upload
}

// SendTemplate stores a template message and queues it. Templates may be
// sent outside the customer service window. The sending account is the
// named one, else the template's (by id), else the default outgoing
// account, else the contact's; the template must be of that account and
// APPROVED. Header media is downloaded or saved before the transaction,
// so that none stays open across a download.
//
// Errors: invalid (missing or conflicting inputs, parameters that do not
// match the template's variables, a template of another account or not
// approved, header media of the wrong type or size, no account),
// not_found (contact_id, template).
func (s *Service) SendTemplate(ctx context.Context, in TemplateInput) (*ent.Message, error) {
	in.HeaderMediaID, in.HeaderMediaURL = strings.TrimSpace(in.HeaderMediaID), strings.TrimSpace(in.HeaderMediaURL)
	if err := in.check(); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	c, phone, err := s.templateRecipient(ctx, db, in)
	if err != nil {
		return nil, err
	}
	t, a, err := s.templateAndAccount(ctx, db, in, c)
	if err != nil {
		return nil, err
	}
	d, err := bindTemplate(t, in)
	if err != nil {
		return nil, err
	}
	d.account = a
	if d.media, err = s.templateHeaderMedia(ctx, t, in); err != nil {
		return nil, err
	}
	var m *ent.Message
	err = s.inTx(ctx, func(ctx context.Context, db *ent.Client) (err error) {
		d.contact = c
		if c == nil {
			if d.contact, d.newContact, err = upsertContact(ctx, db, phone, a.Name); err != nil {
				return err
			}
		}
		m, err = s.store(ctx, db, d)
		return err
	})
	return m, err
}

// check validates the shape of the input: one recipient, one template, at
// most one header media source, no NUL characters.
func (in TemplateInput) check() error {
	switch {
	case in.ContactID == nil && strings.TrimSpace(in.PhoneNumber) == "":
		return apperr.Invalidf("contact_id or phone_number is required")
	case in.ContactID != nil && strings.TrimSpace(in.PhoneNumber) != "":
		return apperr.Invalidf("give contact_id or phone_number, not both")
	case in.TemplateID == nil && strings.TrimSpace(in.TemplateName) == "":
		return apperr.Invalidf("template_name or template_id is required")
	case in.TemplateID != nil && strings.TrimSpace(in.TemplateName) != "":
		return apperr.Invalidf("give template_name or template_id, not both")
	}
	sources := 0
	for _, set := range []bool{in.HeaderMediaID != "", in.HeaderMediaURL != "", in.HeaderFile != nil} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return apperr.Invalidf("give one of header_media_id, header_media_url and header_file")
	}
	for field, v := range map[string]string{
		"phone_number": in.PhoneNumber, "template_name": in.TemplateName, "account_name": in.Account,
		"header_media_id": in.HeaderMediaID, "header_media_url": in.HeaderMediaURL,
		"header_media_filename": in.HeaderMediaFilename,
	} {
		if err := valid.Check(field, v, maxTemplateField); err != nil {
			return err
		}
	}
	return nil
}

// templateRecipient returns the contact named by id, or the contact of
// the phone number (nil when it is new) with the normalised number.
func (s *Service) templateRecipient(ctx context.Context, db *ent.Client, in TemplateInput) (*ent.Contact, string, error) {
	if in.ContactID != nil {
		c, err := db.Contact.Get(ctx, *in.ContactID)
		if err != nil {
			return nil, "", apperr.Wrap(err, "contact")
		}
		return c, c.PhoneNumber, nil
	}
	phone, err := NormalizePhone(in.PhoneNumber)
	if err != nil {
		return nil, "", err
	}
	c, err := db.Contact.Query().Where(contact.PhoneNumber(phone)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, phone, nil
	}
	if err != nil {
		return nil, "", apperr.Wrap(err, "contact")
	}
	return c, phone, nil
}

// upsertContact creates the contact of phone, or returns the one a
// concurrent request created; newContact tells whether this call made it.
func upsertContact(ctx context.Context, db *ent.Client, phone, accountName string) (*ent.Contact, bool, error) {
	exists, err := db.Contact.Query().Where(contact.PhoneNumber(phone)).Exist(ctx)
	if err != nil {
		return nil, false, apperr.Wrap(err, "contact")
	}
	id, err := db.Contact.Create().SetPhoneNumber(phone).SetChatAccount(accountName).
		OnConflictColumns(contact.FieldOrganizationID, contact.FieldPhoneNumber).Ignore().ID(ctx)
	if err != nil {
		return nil, false, apperr.Wrap(err, "contact")
	}
	c, err := db.Contact.Get(ctx, id)
	return c, !exists, apperr.Wrap(err, "contact")
}

// templateAndAccount finds the sending account and the template.
func (s *Service) templateAndAccount(ctx context.Context, db *ent.Client, in TemplateInput, c *ent.Contact) (*ent.Template, *ent.Account, error) {
	accountName := strings.TrimSpace(in.Account)
	var t *ent.Template
	if in.TemplateID != nil {
		var err error
		if t, err = db.Template.Get(ctx, *in.TemplateID); err != nil {
			return nil, nil, apperr.Wrap(err, "template")
		}
		if accountName == "" {
			accountName = t.ChatAccount
		}
	}
	a, err := s.resolveAccount(ctx, db, accountName, c)
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		t, err = templateByName(ctx, db, strings.TrimSpace(in.TemplateName), a.Name)
	} else if t.ChatAccount != a.Name {
		err = apperr.Invalidf("template %q belongs to account %q, not %q", t.Name, t.ChatAccount, a.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	if t.Status != statusApproved {
		return nil, nil, apperr.Invalidf("template %q is not approved (status %s)", t.Name, t.Status)
	}
	return t, a, nil
}

// templateByName returns the account's approved template of that name;
// a name approved in several languages is ambiguous.
func templateByName(ctx context.Context, db *ent.Client, name, accountName string) (*ent.Template, error) {
	ts, err := db.Template.Query().Where(template.Name(name), template.ChatAccount(accountName)).
		Order(ent.Asc(template.FieldLanguage)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "template")
	}
	if len(ts) == 0 {
		return nil, apperr.NotFoundf("template %q not found for account %q", name, accountName)
	}
	var approved []*ent.Template
	var languages []string
	for _, t := range ts {
		if t.Status == statusApproved {
			approved = append(approved, t)
			languages = append(languages, t.Language)
		}
	}
	switch len(approved) {
	case 0:
		return ts[0], nil // reported as not approved by the caller
	case 1:
		return approved[0], nil
	}
	return nil, apperr.Invalidf("template %q is approved in several languages (%s): give template_id",
		name, strings.Join(languages, ", "))
}

// TemplateParams are the values of one send of a template: Body fills
// the body variables by name ("1", "2", ... or named ones), Header the one
// variable of a TEXT header, Buttons the variable of dynamic URL buttons
// by button index ("0", "1", ...).
type TemplateParams struct {
	Body    map[string]string
	Header  map[string]string
	Buttons map[string]string
}

// BindTemplateParams checks p against t's variables (templates.Variables)
// with the platform's rules for parameter values, and returns the trimmed
// values to send. headerMedia tells that the send gives header media
// (refused for TEXT headers). Errors: invalid (a missing, unknown or
// malformed value).
func BindTemplateParams(t *ent.Template, p TemplateParams, headerMedia bool) (TemplateParams, error) {
	body, err := bindParams("template_params", t, templates.VariableNames(t.BodyContent), p.Body)
	if err != nil {
		return TemplateParams{}, err
	}
	header, err := bindHeaderParams(t, p.Header, headerMedia)
	if err != nil {
		return TemplateParams{}, err
	}
	buttons, err := bindButtons(t, p.Buttons)
	if err != nil {
		return TemplateParams{}, err
	}
	return TemplateParams{Body: body, Header: header, Buttons: buttons}, nil
}

// TemplateComponents is the platform's template message of t sent with
// bound parameters (BindTemplateParams): positional parameters in order,
// named ones with their parameter_name, URL button parameters by index.
// headerMedia fills an IMAGE, VIDEO or DOCUMENT header by platform media
// id or public link (Filename for documents); it must match the header.
// Errors: invalid (header media missing or of the wrong kind).
func TemplateComponents(t *ent.Template, p TemplateParams, headerMedia *provider.Media) (*provider.Template, error) {
	kind, isMedia := headerKinds[t.HeaderType]
	switch {
	case isMedia && headerMedia == nil:
		return nil, apperr.Invalidf("template %q has a %s header: header media is required", t.Name, t.HeaderType)
	case !isMedia && headerMedia != nil:
		return nil, apperr.Invalidf("template %q has no media header: header media is not accepted", t.Name)
	case isMedia && string(headerMedia.Kind) != kind:
		return nil, apperr.Invalidf("template %q has a %s header, not %s", t.Name, t.HeaderType, headerMedia.Kind)
	}
	out := templateComponents(t.Name, t.Language, p)
	out.HeaderMedia = headerMedia
	return out, nil
}

// templateComponents builds the template message without header media.
func templateComponents(name, language string, p TemplateParams) *provider.Template {
	t := &provider.Template{
		Name: name, Language: language,
		Body: templateParams(p.Body), HeaderText: templateParams(p.Header),
	}
	for k, v := range p.Buttons {
		i, err := strconv.Atoi(k)
		if err != nil {
			continue // bound parameters have index keys
		}
		t.Buttons = append(t.Buttons, provider.TemplateButton{Index: i, SubType: provider.ButtonURL, Value: v})
	}
	sort.Slice(t.Buttons, func(i, j int) bool { return t.Buttons[i].Index < t.Buttons[j].Index })
	return t
}

// templateParams orders parameters: positional ones ("1", "2", ...) by
// number and without names, named ones by name with their names.
func templateParams(values map[string]string) []provider.TemplateParam {
	keys := make([]string, 0, len(values))
	positional := true
	for k := range values {
		keys = append(keys, k)
		if _, err := strconv.Atoi(k); err != nil {
			positional = false
		}
	}
	if positional {
		sort.Slice(keys, func(i, j int) bool { a, _ := strconv.Atoi(keys[i]); b, _ := strconv.Atoi(keys[j]); return a < b })
	} else {
		sort.Strings(keys)
	}
	out := make([]provider.TemplateParam, len(keys))
	for i, k := range keys {
		out[i] = provider.TemplateParam{Text: values[k]}
		if !positional {
			out[i].Name = k
		}
	}
	return out
}

// bindTemplate checks the parameters against the template's variables and
// returns the message to store: the rendered body, and what the worker
// needs to build the platform's call.
func bindTemplate(t *ent.Template, in TemplateInput) (draft, error) {
	p, err := BindTemplateParams(t, TemplateParams{Body: in.TemplateParams, Header: in.HeaderParams, Buttons: in.ButtonParams},
		in.HeaderMediaID != "" || in.HeaderMediaURL != "" || in.HeaderFile != nil)
	if err != nil {
		return draft{}, err
	}
	body, header, buttons := p.Body, p.Header, p.Buttons
	rendered := templates.Render(t.BodyContent, body)
	content := map[string]any{
		"body": rendered, "template_name": t.Name, "template_id": t.ID.String(),
		"language": t.Language, "header_type": string(t.HeaderType),
	}
	setIfAny(content, "template_params", body)
	setIfAny(content, "header_params", header)
	setIfAny(content, "button_params", buttons)
	if t.HeaderType == template.HeaderTypeTEXT {
		content["header"] = templates.Render(t.HeaderContent, header)
	}
	if id := strings.TrimSpace(in.HeaderMediaID); id != "" {
		content["media_id"] = id
	}
	preview := rendered
	if preview == "" {
		preview = "[template] " + t.Name
	}
	return draft{kind: TypeTemplate, content: content, preview: preview}, nil
}

func setIfAny(content map[string]any, key string, values map[string]string) {
	if len(values) > 0 {
		content[key] = values
	}
}

// bindParams checks that values hold exactly the variables vars, each with
// a value the platform accepts.
func bindParams(field string, t *ent.Template, vars []string, values map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(vars))
	for k := range values {
		if !slices.Contains(vars, k) {
			return nil, apperr.Invalidf("%s: template %q has no variable {{%s}} (its variables: %s)", field, t.Name, k, listVariables(vars))
		}
	}
	for _, v := range vars {
		val := strings.TrimSpace(values[v])
		if val == "" {
			return nil, apperr.Invalidf("%s needs a value for {{%s}} of template %q", field, v, t.Name)
		}
		if err := checkParam(field, v, val); err != nil {
			return nil, err
		}
		out[v] = val
	}
	return out, nil
}

func listVariables(vars []string) string {
	if len(vars) == 0 {
		return "none"
	}
	out := make([]string, len(vars))
	for i, v := range vars {
		out[i] = "{{" + v + "}}"
	}
	return strings.Join(out, ", ")
}

// checkParam applies the platform's rules for text parameters: no new
// lines or tabs, no more than four consecutive spaces.
func checkParam(field, name, val string) error {
	if strings.ContainsAny(val, "\n\r\t") || strings.Contains(val, "     ") {
		return apperr.Invalidf("%s {{%s}} must not contain new lines, tabs or more than 4 consecutive spaces", field, name)
	}
	return valid.Check(field, val, maxParamText)
}

// bindHeaderParams checks header_params against the template's header: at
// most one TEXT header variable, none for other headers.
func bindHeaderParams(t *ent.Template, values map[string]string, headerMedia bool) (map[string]string, error) {
	if len(values) > 1 {
		return nil, apperr.Invalidf("header_params takes at most 1 TEXT header variable, not %d", len(values))
	}
	if t.HeaderType != template.HeaderTypeTEXT {
		if len(values) > 0 {
			return nil, apperr.Invalidf("header_params: template %q has no TEXT header", t.Name)
		}
		return nil, nil
	}
	if headerMedia {
		return nil, apperr.Invalidf("template %q has a TEXT header: header media is not accepted", t.Name)
	}
	vars := templates.VariableNames(t.HeaderContent)
	if len(vars) > 1 {
		return nil, apperr.Invalidf("template %q has %d TEXT header variables; at most 1 is supported", t.Name, len(vars))
	}
	return bindParams("header_params", t, vars, values)
}

// bindButtons checks button_params: one value for every URL button whose
// URL has a variable, keyed by the button's index.
func bindButtons(t *ent.Template, values map[string]string) (map[string]string, error) {
	dynamic := templates.Variables(t).URLButtons
	out := make(map[string]string, len(dynamic))
	for k := range values {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 {
			return nil, apperr.Invalidf("button_params keys must be button indexes (0, 1, ...), not %q", k)
		}
		if !slices.Contains(dynamic, i) {
			return nil, apperr.Invalidf("button_params: button %d of template %q is not a URL button with a variable", i, t.Name)
		}
	}
	for _, i := range dynamic {
		k := strconv.Itoa(i)
		val := strings.TrimSpace(values[k])
		if val == "" {
			return nil, apperr.Invalidf("button_params needs a value for button %d of template %q (a dynamic URL button)", i, t.Name)
		}
		if err := valid.Check("button_params", val, maxParamText); err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

// headerKinds maps media header types to media kinds.
var headerKinds = map[template.HeaderType]string{
	template.HeaderTypeIMAGE:    KindImage,
	template.HeaderTypeVIDEO:    KindVideo,
	template.HeaderTypeDOCUMENT: KindDocument,
}

// templateHeaderMedia checks the header media of a media header and saves
// a given or downloaded file to the media store (the worker uploads it).
// A header_media_id needs no file; the result then only names the file.
func (s *Service) templateHeaderMedia(ctx context.Context, t *ent.Template, in TemplateInput) (*storedMedia, error) {
	kind, ok := headerKinds[t.HeaderType]
	if !ok {
		if t.HeaderType == template.HeaderTypeNONE && (in.HeaderMediaID != "" || in.HeaderMediaURL != "" || in.HeaderFile != nil) {
			return nil, apperr.Invalidf("template %q has no header: header media is not accepted", t.Name)
		}
		return nil, nil
	}
	filename := strings.TrimSpace(in.HeaderMediaFilename)
	if kind == KindDocument && filename == "" {
		return nil, apperr.Invalidf("header_media_filename is required for the DOCUMENT header of template %q", t.Name)
	}
	var (
		sm  *storedMedia
		err error
	)
	switch {
	case in.HeaderMediaID != "":
		return &storedMedia{filename: filename}, nil
	case in.HeaderFile != nil:
		sm, err = s.saveUpload(ctx, kind, "header_file", *in.HeaderFile)
	case in.HeaderMediaURL != "":
		sm, err = s.saveDownload(ctx, kind, in.HeaderMediaURL)
	default:
		return nil, apperr.Invalidf("template %q has a %s header: give header_media_id, header_media_url or header_file", t.Name, t.HeaderType)
	}
	if err != nil {
		return nil, err
	}
	if filename != "" {
		sm.filename = truncate(filename, 255)
	}
	return sm, nil
}

// saveDownload downloads a header_media_url and saves it like an upload.
func (s *Service) saveDownload(ctx context.Context, kind, raw string) (*storedMedia, error) {
	f, u, err := s.download(ctx, kind, raw)
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	return s.saveUpload(ctx, kind, "header_media_url", u)
}
