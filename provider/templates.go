package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// TemplateDefinition is a message template as the platform's
// message_templates create call takes it (POST /{waba_id}/message_templates).
type TemplateDefinition struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Category string `json:"category"`
	// ParameterFormat is "NAMED" for templates with named variables
	// ({{first_name}}); empty (positional) otherwise.
	ParameterFormat string              `json:"parameter_format,omitempty"`
	Components      []TemplateComponent `json:"components"`
}

// TemplateComponent is one component of a template definition, in the
// Cloud API's documented shape: HEADER (Format TEXT, IMAGE, VIDEO or
// DOCUMENT), BODY, FOOTER or BUTTONS.
type TemplateComponent struct {
	Type    string              `json:"type"`
	Format  string              `json:"format,omitempty"`
	Text    string              `json:"text,omitempty"`
	Example *TemplateExample    `json:"example,omitempty"`
	Buttons []TemplateButtonDef `json:"buttons,omitempty"`
	// AUTHENTICATION templates: BODY and FOOTER options.
	AddSecurityRecommendation *bool `json:"add_security_recommendation,omitempty"`
	CodeExpirationMinutes     *int  `json:"code_expiration_minutes,omitempty"`
}

// TemplateExample holds the samples of a component's variables or media.
type TemplateExample struct {
	HeaderText            []string            `json:"header_text,omitempty"`
	HeaderTextNamedParams []NamedParamExample `json:"header_text_named_params,omitempty"`
	HeaderHandle          []string            `json:"header_handle,omitempty"`
	// BodyText is one list of samples, in variable order, inside a list.
	BodyText            [][]string          `json:"body_text,omitempty"`
	BodyTextNamedParams []NamedParamExample `json:"body_text_named_params,omitempty"`
}

// NamedParamExample is the sample of one named variable.
type NamedParamExample struct {
	ParamName string `json:"param_name"`
	Example   string `json:"example"`
}

// TemplateButtonDef is one button of a BUTTONS component: QUICK_REPLY,
// URL (Example: the full sample URL when URL ends in {{1}}),
// PHONE_NUMBER, COPY_CODE (Example: the sample code) or OTP (OTPType
// COPY_CODE).
type TemplateButtonDef struct {
	Type        string `json:"type"`
	Text        string `json:"text,omitempty"`
	URL         string `json:"url,omitempty"`
	PhoneNumber string `json:"phone_number,omitempty"`
	// Example is a list for URL buttons and a string for COPY_CODE.
	Example any    `json:"example,omitempty"`
	OTPType string `json:"otp_type,omitempty"`
}

// TemplateStatus is the platform's answer to a template create: its id,
// review status (PENDING, APPROVED, REJECTED) and category (which the
// platform may change).
type TemplateStatus struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Category string `json:"category"`
}

// CreateTemplate submits a template for review
// (POST /{waba_id}/message_templates).
//
// Errors: ErrInvalid for a missing business account id, name or language;
// *Error for a Graph error answer (an invalid component, a name that
// exists, with the platform's error_user_msg in Details);
// ErrUnexpectedResponse when the answer has no id; a transport error
// otherwise. A create is not retried: a lost answer could otherwise
// submit twice.
func (c *Client) CreateTemplate(ctx context.Context, acc Account, def TemplateDefinition) (*TemplateStatus, error) {
	if def.Name == "" || def.Language == "" || def.Category == "" {
		return nil, fmt.Errorf("%w: a template needs a name, a language and a category", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, acc.BusinessID, "message_templates")
	if err != nil {
		return nil, err
	}
	r, err := jsonRequest(http.MethodPost, u, def)
	if err != nil {
		return nil, err
	}
	var a TemplateStatus
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	if a.ID == "" {
		return nil, fmt.Errorf("%w: %s: no template id", ErrUnexpectedResponse, r.what)
	}
	return &a, nil
}

// TemplateEdit is an edit of a published template: its components and
// optionally its category (name and language cannot change).
type TemplateEdit struct {
	Category   string              `json:"category,omitempty"`
	Components []TemplateComponent `json:"components"`
}

// EditTemplate edits a published template (POST /{template_id}); the
// platform reviews it again.
//
// Errors: ErrInvalid for an empty id; *Error for a Graph error answer
// (edit limits reached, an invalid component); ErrUnexpectedResponse
// when success is not true; a transport error otherwise.
func (c *Client) EditTemplate(ctx context.Context, acc Account, templateID string, edit TemplateEdit) error {
	u, err := c.endpoint(acc, nil, templateID)
	if err != nil {
		return err
	}
	r, err := jsonRequest(http.MethodPost, u, edit)
	if err != nil {
		return err
	}
	// The same edit twice leaves the same template.
	r.idempotent = true
	return c.doSuccess(ctx, acc, r)
}

// DeleteTemplate deletes a template of the business account by name and
// id (DELETE /{waba_id}/message_templates?name=&hsm_id=): only that
// language's template, not every template of the name.
//
// Errors: ErrInvalid for an empty name or id; *Error for a Graph error
// answer (an unknown template); ErrUnexpectedResponse when success is not
// true; a transport error otherwise.
func (c *Client) DeleteTemplate(ctx context.Context, acc Account, name, templateID string) error {
	if name == "" || templateID == "" {
		return fmt.Errorf("%w: deleting a template needs its name and id", ErrInvalid)
	}
	u, err := c.endpoint(acc, url.Values{"name": {name}, "hsm_id": {templateID}}, acc.BusinessID, "message_templates")
	if err != nil {
		return err
	}
	r := &request{method: http.MethodDelete, url: u, idempotent: true}
	return c.doSuccess(ctx, acc, r)
}

// PlatformTemplate is one template as the platform lists it.
type PlatformTemplate struct {
	ID              string              `json:"id"`
	Name            string              `json:"name"`
	Language        string              `json:"language"`
	Status          string              `json:"status"`
	Category        string              `json:"category"`
	ParameterFormat string              `json:"parameter_format"`
	Components      []PlatformComponent `json:"components"`
	QualityScore    *struct {
		Score string `json:"score"`
	} `json:"quality_score"`
}

// PlatformComponent is a listed template's component; Example is kept
// as the platform sent it.
type PlatformComponent struct {
	Type                      string           `json:"type"`
	Format                    string           `json:"format"`
	Text                      string           `json:"text"`
	Buttons                   []PlatformButton `json:"buttons"`
	Example                   *TemplateExample `json:"example"`
	AddSecurityRecommendation bool             `json:"add_security_recommendation"`
	CodeExpirationMinutes     int              `json:"code_expiration_minutes"`
}

// PlatformButton is a listed template's button.
type PlatformButton struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	URL         string `json:"url"`
	PhoneNumber string `json:"phone_number"`
	OTPType     string `json:"otp_type"`
}

// templateFields are the fields ListTemplates asks for.
const templateFields = "id,name,language,status,category,parameter_format,components,quality_score"

// ListTemplates returns a page of the business account's templates
// (GET /{waba_id}/message_templates?fields=&limit=&after=); pass the
// previous page's After to read the next one.
//
// Errors: *Error for a Graph error answer; ErrUnexpectedResponse for an
// answer that is not the documented list; a transport error otherwise.
func (c *Client) ListTemplates(ctx context.Context, acc Account, after string, limit int) (*Page[PlatformTemplate], error) {
	return listPage[PlatformTemplate](ctx, c, acc, templateFields, after, limit, acc.BusinessID, "message_templates")
}
