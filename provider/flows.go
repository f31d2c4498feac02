package provider

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
)

// The WhatsApp Flows endpoints of the Graph API: create a flow of a
// business account, upload its Flow JSON asset, publish, deprecate, read
// one flow and list the account's flows.

// FlowValidationError is one error the platform found in a Flow JSON: the
// error code, its message and where it is (lines and columns of the
// uploaded file; Pointers name the JSON paths such as
// "screens[0].layout.children[1].type").
type FlowValidationError struct {
	Error       string        `json:"error"`
	ErrorType   string        `json:"error_type"`
	Message     string        `json:"message"`
	LineStart   int           `json:"line_start"`
	LineEnd     int           `json:"line_end"`
	ColumnStart int           `json:"column_start"`
	ColumnEnd   int           `json:"column_end"`
	Pointers    []FlowPointer `json:"pointers"`
}

// FlowPointer locates an error in the Flow JSON by path and position.
type FlowPointer struct {
	LineStart   int    `json:"line_start"`
	LineEnd     int    `json:"line_end"`
	ColumnStart int    `json:"column_start"`
	ColumnEnd   int    `json:"column_end"`
	Path        string `json:"path"`
}

// FlowCreated is the answer of CreateFlow.
type FlowCreated struct {
	ID               string                `json:"id"`
	Success          bool                  `json:"success"`
	ValidationErrors []FlowValidationError `json:"validation_errors"`
}

// CreateFlow creates a flow in DRAFT at the business account
// (POST /{waba_id}/flows with name and categories).
//
// Errors: ErrInvalid for a missing name or no category; *Error for a
// Graph error answer (a name the account already uses); ErrUnexpectedResponse
// when the answer has no id; a transport error otherwise. Not retried
// after the request was sent: a lost answer could create two flows.
func (c *Client) CreateFlow(ctx context.Context, acc Account, name string, categories []string) (*FlowCreated, error) {
	if name == "" || len(categories) == 0 {
		return nil, fmt.Errorf("%w: a flow needs a name and at least one category", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, acc.BusinessID, "flows")
	if err != nil {
		return nil, err
	}
	r, err := jsonRequest(http.MethodPost, u, map[string]any{"name": name, "categories": categories})
	if err != nil {
		return nil, err
	}
	var a FlowCreated
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	if a.ID == "" {
		return nil, fmt.Errorf("%w: %s: no flow id", ErrUnexpectedResponse, r.what)
	}
	return &a, nil
}

// UpdateFlowMetadata renames a flow and sets its categories
// (POST /{flow_id} with name and categories, the platform's "update flow
// metadata" call). Errors: ErrInvalid for an empty id, name or no
// category; *Error for a Graph error answer (a name the account already
// uses); ErrUnexpectedResponse when success is not true; a transport
// error otherwise. Setting the same metadata twice leaves the same flow,
// so it is retried.
func (c *Client) UpdateFlowMetadata(ctx context.Context, acc Account, flowID, name string, categories []string) error {
	if name == "" || len(categories) == 0 {
		return fmt.Errorf("%w: a flow needs a name and at least one category", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, flowID)
	if err != nil {
		return err
	}
	r, err := jsonRequest(http.MethodPost, u, map[string]any{"name": name, "categories": categories})
	if err != nil {
		return err
	}
	r.idempotent = true
	return c.doSuccess(ctx, acc, r)
}

// FlowAssetResult is the answer of UploadFlowJSON: the platform's
// validation errors of the uploaded Flow JSON (none when it is valid).
type FlowAssetResult struct {
	Success          bool                  `json:"success"`
	ValidationErrors []FlowValidationError `json:"validation_errors"`
}

// UploadFlowJSON uploads flowJSON as the flow's Flow JSON asset
// (POST /{flow_id}/assets, multipart: file flow.json of type
// application/json, name "flow.json", asset_type "FLOW_JSON"). The
// platform stores the file even when it finds errors; they come back in
// ValidationErrors.
//
// Errors: ErrInvalid for an empty id or body; *Error for a Graph error
// answer; ErrUnexpectedResponse when success is not true; a transport
// error otherwise. The same upload twice leaves the same asset, so it is
// retried.
func (c *Client) UploadFlowJSON(ctx context.Context, acc Account, flowID string, flowJSON []byte) (*FlowAssetResult, error) {
	if len(flowJSON) == 0 {
		return nil, fmt.Errorf("%w: the flow JSON is empty", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, flowID, "assets")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, kv := range [][2]string{{"name", "flow.json"}, {"asset_type", "FLOW_JSON"}} {
		if err := mw.WriteField(kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="flow.json"`)
	h.Set("Content-Type", "application/json")
	part, err := mw.CreatePart(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if _, err := part.Write(flowJSON); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := mw.Close(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	body := buf.Bytes()
	r := &request{
		method: http.MethodPost, url: u, contentType: mw.FormDataContentType(),
		newBody: bytesBody(body), length: int64(len(body)), idempotent: true,
	}
	var a FlowAssetResult
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	if !a.Success && len(a.ValidationErrors) == 0 {
		return nil, fmt.Errorf("%w: %s: success is false", ErrUnexpectedResponse, r.what)
	}
	return &a, nil
}

// PublishFlow publishes a draft flow (POST /{flow_id}/publish); it can
// then be sent and no longer changed.
//
// Errors: ErrInvalid for an empty id; *Error for a Graph error answer (a
// flow with validation errors); ErrUnexpectedResponse when success is not
// true; a transport error otherwise.
func (c *Client) PublishFlow(ctx context.Context, acc Account, flowID string) error {
	return c.flowAction(ctx, acc, flowID, "publish")
}

// DeprecateFlow deprecates a published flow (POST /{flow_id}/deprecate):
// it can no longer be sent. Errors as PublishFlow.
func (c *Client) DeprecateFlow(ctx context.Context, acc Account, flowID string) error {
	return c.flowAction(ctx, acc, flowID, "deprecate")
}

func (c *Client) flowAction(ctx context.Context, acc Account, flowID, action string) error {
	u, err := c.endpoint(acc, nil, flowID, action)
	if err != nil {
		return err
	}
	r := &request{method: http.MethodPost, url: u, idempotent: true}
	return c.doSuccess(ctx, acc, r)
}

// PlatformFlow is one flow as the platform describes it.
type PlatformFlow struct {
	ID               string                `json:"id"`
	Name             string                `json:"name"`
	Status           string                `json:"status"`
	Categories       []string              `json:"categories"`
	JSONVersion      string                `json:"json_version"`
	ValidationErrors []FlowValidationError `json:"validation_errors"`
	Preview          *struct {
		PreviewURL string `json:"preview_url"`
		ExpiresAt  string `json:"expires_at"`
	} `json:"preview"`
}

// PreviewURL is the flow's web preview link, "" when the platform gave
// none.
func (f PlatformFlow) PreviewURL() string {
	if f.Preview == nil {
		return ""
	}
	return f.Preview.PreviewURL
}

const flowFields = "id,name,status,categories,json_version,validation_errors,preview"

// GetFlow reads one flow (GET /{flow_id}?fields=...), with its preview
// link. Errors: *Error for a Graph error answer (an unknown id);
// ErrUnexpectedResponse for an answer without id; a transport error
// otherwise.
func (c *Client) GetFlow(ctx context.Context, acc Account, flowID string) (*PlatformFlow, error) {
	u, err := c.endpoint(acc, url.Values{"fields": {flowFields}}, flowID)
	if err != nil {
		return nil, err
	}
	var f PlatformFlow
	r := getRequest(u)
	if err := c.doJSON(ctx, acc, r, &f); err != nil {
		return nil, err
	}
	if f.ID == "" {
		return nil, fmt.Errorf("%w: %s: no flow id", ErrUnexpectedResponse, r.what)
	}
	return &f, nil
}

// ListFlows returns a page of the business account's flows
// (GET /{waba_id}/flows?fields=&limit=&after=).
//
// Errors: *Error for a Graph error answer; ErrUnexpectedResponse for an
// answer that is not the documented list; a transport error otherwise.
func (c *Client) ListFlows(ctx context.Context, acc Account, after string, limit int) (*Page[PlatformFlow], error) {
	return listPage[PlatformFlow](ctx, c, acc, "id,name,status,categories,validation_errors", after, limit, acc.BusinessID, "flows")
}

// Flow is an interactive flow message: a button (CTA) that opens the
// flow FlowID on the user's phone. FlowToken identifies this send (it
// comes back in the reply); Action is "navigate" (open Screen with Data)
// or "data_exchange" (ask the flow's endpoint); Draft sends a flow that is
// not yet published (mode "draft"), for testing.
type Flow struct {
	Header string
	Body   string
	Footer string
	FlowID string
	Token  string
	CTA    string
	Action string
	Screen string
	Data   map[string]any
	Draft  bool
}

type wireFlowParams struct {
	FlowMessageVersion string            `json:"flow_message_version"`
	FlowToken          string            `json:"flow_token,omitempty"`
	FlowID             string            `json:"flow_id"`
	FlowCTA            string            `json:"flow_cta"`
	FlowAction         string            `json:"flow_action"`
	Mode               string            `json:"mode,omitempty"`
	FlowActionPayload  *wireFlowNavigate `json:"flow_action_payload,omitempty"`
}

type wireFlowNavigate struct {
	Screen string         `json:"screen"`
	Data   map[string]any `json:"data,omitempty"`
}

func buildFlow(f *Flow) (*wireInteractive, error) {
	if f.Body == "" || f.FlowID == "" || f.CTA == "" {
		return nil, invalid("flow message needs a body, a flow id and a CTA")
	}
	p := &wireFlowParams{FlowMessageVersion: "3", FlowToken: f.Token, FlowID: f.FlowID, FlowCTA: f.CTA, FlowAction: f.Action}
	switch f.Action {
	case "", "navigate":
		p.FlowAction = "navigate"
		if f.Screen != "" {
			p.FlowActionPayload = &wireFlowNavigate{Screen: f.Screen, Data: f.Data}
		}
	case "data_exchange":
	default:
		return nil, invalid("flow_action must be navigate or data_exchange, not %q", f.Action)
	}
	if f.Draft {
		p.Mode = "draft"
	}
	var h *wireHeader
	if f.Header != "" {
		h = &wireHeader{Type: "text", Text: f.Header}
	}
	return &wireInteractive{
		Type: "flow", Header: h, Body: wireBodyText{Text: f.Body}, Footer: footer(f.Footer),
		Action: wireAction{Name: "flow", Parameters: p},
	}, nil
}
