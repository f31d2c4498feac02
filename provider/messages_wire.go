package provider

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The JSON shapes of POST /{phone_id}/messages, as Meta documents them.

type wireMessage struct {
	MessagingProduct string           `json:"messaging_product"`
	RecipientType    string           `json:"recipient_type"`
	To               string           `json:"to"`
	Type             string           `json:"type"`
	Context          *wireContext     `json:"context,omitempty"`
	Text             *wireText        `json:"text,omitempty"`
	Interactive      *wireInteractive `json:"interactive,omitempty"`
	Template         *wireTemplate    `json:"template,omitempty"`
	Image            *wireMedia       `json:"image,omitempty"`
	Video            *wireMedia       `json:"video,omitempty"`
	Audio            *wireMedia       `json:"audio,omitempty"`
	Document         *wireMedia       `json:"document,omitempty"`
	Sticker          *wireMedia       `json:"sticker,omitempty"`
	Reaction         *wireReaction    `json:"reaction,omitempty"`
	Location         *wireLocation    `json:"location,omitempty"`
	// BizOpaqueCallbackData is echoed back in the message's status
	// webhooks.
	BizOpaqueCallbackData string `json:"biz_opaque_callback_data,omitempty"`
}

type wireContext struct {
	MessageID string `json:"message_id"`
}

type wireText struct {
	PreviewURL bool   `json:"preview_url"`
	Body       string `json:"body"`
}

type wireMedia struct {
	ID       string `json:"id,omitempty"`
	Link     string `json:"link,omitempty"`
	Caption  string `json:"caption,omitempty"`
	Filename string `json:"filename,omitempty"`
}

type wireInteractive struct {
	Type   string        `json:"type"`
	Header *wireHeader   `json:"header,omitempty"`
	Body   wireBodyText  `json:"body"`
	Footer *wireBodyText `json:"footer,omitempty"`
	Action wireAction    `json:"action"`
}

type wireHeader struct {
	Type     string     `json:"type"`
	Text     string     `json:"text,omitempty"`
	Image    *wireMedia `json:"image,omitempty"`
	Video    *wireMedia `json:"video,omitempty"`
	Document *wireMedia `json:"document,omitempty"`
}

type wireBodyText struct {
	Text string `json:"text"`
}

type wireAction struct {
	// button
	Buttons []wireButton `json:"buttons,omitempty"`
	// cta_url
	Name string `json:"name,omitempty"`
	// cta_url: *wireCTAParams; flow: *wireFlowParams
	Parameters any `json:"parameters,omitempty"`
	// list
	Button   string        `json:"button,omitempty"`
	Sections []wireSection `json:"sections,omitempty"`
	// product and product_list (products_wire.go)
	CatalogID         string `json:"catalog_id,omitempty"`
	ProductRetailerID string `json:"product_retailer_id,omitempty"`
}

type wireButton struct {
	Type  string      `json:"type"`
	Reply wireReplyID `json:"reply"`
}

type wireReplyID struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type wireCTAParams struct {
	DisplayText string `json:"display_text"`
	URL         string `json:"url"`
}

type wireSection struct {
	Title        string            `json:"title,omitempty"`
	Rows         []wireRow         `json:"rows,omitempty"`
	ProductItems []wireProductItem `json:"product_items,omitempty"`
}

type wireRow struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

type wireTemplate struct {
	Name       string          `json:"name"`
	Language   wireLanguage    `json:"language"`
	Components []wireComponent `json:"components,omitempty"`
}

type wireLanguage struct {
	Code string `json:"code"`
}

type wireComponent struct {
	Type       string      `json:"type"`
	SubType    string      `json:"sub_type,omitempty"`
	Index      string      `json:"index,omitempty"`
	Parameters []wireParam `json:"parameters"`
}

type wireParam struct {
	Type          string     `json:"type"`
	ParameterName string     `json:"parameter_name,omitempty"`
	Text          string     `json:"text,omitempty"`
	Payload       string     `json:"payload,omitempty"`
	Image         *wireMedia `json:"image,omitempty"`
	Video         *wireMedia `json:"video,omitempty"`
	Document      *wireMedia `json:"document,omitempty"`
}

type wireReaction struct {
	MessageID string `json:"message_id"`
	Emoji     string `json:"emoji"` // empty removes the reaction, so never omitted
}

// Meta documents latitude and longitude as strings of decimal degrees.
type wireLocation struct {
	Latitude  string `json:"latitude"`
	Longitude string `json:"longitude"`
	Name      string `json:"name,omitempty"`
	Address   string `json:"address,omitempty"`
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Limits checked before sending, as Meta documents them, so that callers get
// a clear error instead of a generic (#100) from the platform.
const (
	maxReplyButtons     = 3
	maxButtonTitleRunes = 20
	maxListRows         = 10
	maxListSections     = 10
	maxListRowTitle     = 24
)

// buildMessage validates m and returns its wire form.
func buildMessage(m OutgoingMessage) (*wireMessage, error) {
	if m.To == "" {
		return nil, invalid("message needs a recipient")
	}
	set := 0
	for _, p := range []bool{m.Text != nil, m.Buttons != nil, m.CTAURL != nil, m.List != nil, m.Flow != nil,
		m.Product != nil, m.ProductList != nil, m.CallPermission != nil, m.Template != nil, m.Media != nil, m.Reaction != nil, m.Location != nil} {
		if p {
			set++
		}
	}
	if set != 1 {
		return nil, invalid("message needs exactly one content, has %d", set)
	}
	w := &wireMessage{MessagingProduct: "whatsapp", RecipientType: "individual", To: m.To, Type: m.Type()}
	if m.ReplyTo != "" {
		w.Context = &wireContext{MessageID: m.ReplyTo}
	}
	if len(m.CallbackData) > maxCallbackData {
		return nil, invalid("biz_opaque_callback_data is longer than %d characters", maxCallbackData)
	}
	w.BizOpaqueCallbackData = m.CallbackData
	var err error
	switch {
	case m.Text != nil:
		if m.Text.Body == "" {
			return nil, invalid("text message needs a body")
		}
		w.Text = &wireText{Body: m.Text.Body, PreviewURL: m.Text.PreviewURL}
	case m.Buttons != nil:
		w.Interactive, err = buildButtons(m.Buttons)
	case m.CTAURL != nil:
		w.Interactive, err = buildCTAURL(m.CTAURL)
	case m.List != nil:
		w.Interactive, err = buildList(m.List)
	case m.Product != nil:
		w.Interactive, err = buildProduct(m.Product)
	case m.ProductList != nil:
		w.Interactive, err = buildProductList(m.ProductList)
	case m.Flow != nil:
		w.Interactive, err = buildFlow(m.Flow)
	case m.CallPermission != nil:
		w.Interactive, err = buildCallPermission(m.CallPermission)
	case m.Template != nil:
		w.Template, err = buildTemplate(m.Template)
	case m.Media != nil:
		err = setMedia(w, m.Media)
	case m.Reaction != nil:
		if m.Reaction.MessageID == "" {
			return nil, invalid("reaction needs the message id it reacts to")
		}
		w.Reaction = &wireReaction{MessageID: m.Reaction.MessageID, Emoji: m.Reaction.Emoji}
	case m.Location != nil:
		l := m.Location
		if l.Latitude < -90 || l.Latitude > 90 || l.Longitude < -180 || l.Longitude > 180 {
			return nil, invalid("location %v,%v is out of range", l.Latitude, l.Longitude)
		}
		w.Location = &wireLocation{
			Latitude:  strconv.FormatFloat(l.Latitude, 'f', -1, 64),
			Longitude: strconv.FormatFloat(l.Longitude, 'f', -1, 64),
			Name:      l.Name,
			Address:   l.Address,
		}
	}
	if err != nil {
		return nil, err
	}
	return w, nil
}

func setMedia(w *wireMessage, m *Media) error {
	wm, err := mediaObject(m, true)
	if err != nil {
		return err
	}
	switch m.Kind {
	case MediaImage:
		w.Image = wm
	case MediaVideo:
		w.Video = wm
	case MediaAudio:
		w.Audio = wm
	case MediaDocument:
		w.Document = wm
	case MediaSticker:
		w.Sticker = wm
	}
	return nil
}

// mediaObject validates m and returns the {id|link, caption, filename}
// object. Captions are allowed only where Meta accepts them (message bodies
// of images, videos and documents), never in headers.
func mediaObject(m *Media, captionAllowed bool) (*wireMedia, error) {
	switch m.Kind {
	case MediaImage, MediaVideo, MediaAudio, MediaDocument, MediaSticker:
	default:
		return nil, invalid("unknown media kind %q", m.Kind)
	}
	if (m.ID == "") == (m.Link == "") {
		return nil, invalid("%s needs exactly one of media id and link", m.Kind)
	}
	if m.Caption != "" && (!captionAllowed || (m.Kind != MediaImage && m.Kind != MediaVideo && m.Kind != MediaDocument)) {
		return nil, invalid("%s takes no caption here", m.Kind)
	}
	if m.Filename != "" && m.Kind != MediaDocument {
		return nil, invalid("only documents take a filename")
	}
	return &wireMedia{ID: m.ID, Link: m.Link, Caption: m.Caption, Filename: m.Filename}, nil
}

func buildHeader(h *Header) (*wireHeader, error) {
	if h == nil {
		return nil, nil
	}
	if (h.Text == "") == (h.Media == nil) {
		return nil, invalid("header needs exactly one of text and media")
	}
	if h.Media == nil {
		return &wireHeader{Type: "text", Text: h.Text}, nil
	}
	wm, err := mediaObject(h.Media, false)
	if err != nil {
		return nil, err
	}
	wh := &wireHeader{Type: string(h.Media.Kind)}
	switch h.Media.Kind {
	case MediaImage:
		wh.Image = wm
	case MediaVideo:
		wh.Video = wm
	case MediaDocument:
		wh.Document = wm
	default:
		return nil, invalid("a header takes an image, video or document, not %s", h.Media.Kind)
	}
	return wh, nil
}

func footer(s string) *wireBodyText {
	if s == "" {
		return nil
	}
	return &wireBodyText{Text: s}
}

func buildButtons(b *ReplyButtons) (*wireInteractive, error) {
	if b.Body == "" {
		return nil, invalid("button message needs a body")
	}
	if n := len(b.Buttons); n < 1 || n > maxReplyButtons {
		return nil, invalid("button message needs 1 to %d buttons, has %d", maxReplyButtons, n)
	}
	h, err := buildHeader(b.Header)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	buttons := make([]wireButton, 0, len(b.Buttons))
	for i, btn := range b.Buttons {
		if btn.ID == "" || btn.Title == "" {
			return nil, invalid("button %d needs an id and a title", i)
		}
		if utf8.RuneCountInString(btn.Title) > maxButtonTitleRunes {
			return nil, invalid("button %d title is longer than %d characters", i, maxButtonTitleRunes)
		}
		if seen[btn.ID] {
			return nil, invalid("button id %q is repeated", btn.ID)
		}
		seen[btn.ID] = true
		buttons = append(buttons, wireButton{Type: "reply", Reply: wireReplyID(btn)})
	}
	return &wireInteractive{
		Type: "button", Header: h, Body: wireBodyText{Text: b.Body}, Footer: footer(b.Footer),
		Action: wireAction{Buttons: buttons},
	}, nil
}

func buildCTAURL(c *CTAURL) (*wireInteractive, error) {
	if c.Body == "" || c.DisplayText == "" || c.URL == "" {
		return nil, invalid("cta_url message needs a body, a display text and a url")
	}
	h, err := buildHeader(c.Header)
	if err != nil {
		return nil, err
	}
	return &wireInteractive{
		Type: "cta_url", Header: h, Body: wireBodyText{Text: c.Body}, Footer: footer(c.Footer),
		Action: wireAction{Name: "cta_url", Parameters: &wireCTAParams{DisplayText: c.DisplayText, URL: c.URL}},
	}, nil
}

func buildList(l *List) (*wireInteractive, error) {
	if l.Body == "" || l.ButtonText == "" {
		return nil, invalid("list message needs a body and a button text")
	}
	if n := len(l.Sections); n < 1 || n > maxListSections {
		return nil, invalid("list message needs 1 to %d sections, has %d", maxListSections, n)
	}
	var h *wireHeader
	if l.Header != "" {
		h = &wireHeader{Type: "text", Text: l.Header}
	}
	rows := 0
	sections := make([]wireSection, 0, len(l.Sections))
	for i, s := range l.Sections {
		if len(l.Sections) > 1 && s.Title == "" {
			return nil, invalid("list section %d needs a title when there are several sections", i)
		}
		if len(s.Rows) == 0 {
			return nil, invalid("list section %d has no rows", i)
		}
		ws := wireSection{Title: s.Title, Rows: make([]wireRow, 0, len(s.Rows))}
		for j, r := range s.Rows {
			if r.ID == "" || r.Title == "" {
				return nil, invalid("list row %d.%d needs an id and a title", i, j)
			}
			if utf8.RuneCountInString(r.Title) > maxListRowTitle {
				return nil, invalid("list row %d.%d title is longer than %d characters", i, j, maxListRowTitle)
			}
			ws.Rows = append(ws.Rows, wireRow(r))
		}
		rows += len(s.Rows)
		sections = append(sections, ws)
	}
	if rows > maxListRows {
		return nil, invalid("list message has %d rows, at most %d", rows, maxListRows)
	}
	return &wireInteractive{
		Type: "list", Header: h, Body: wireBodyText{Text: l.Body}, Footer: footer(l.Footer),
		Action: wireAction{Button: l.ButtonText, Sections: sections},
	}, nil
}

func textParams(where string, ps []TemplateParam) ([]wireParam, error) {
	out := make([]wireParam, 0, len(ps))
	for i, p := range ps {
		if p.Text == "" {
			return nil, invalid("template %s parameter %d is empty", where, i+1)
		}
		out = append(out, wireParam{Type: "text", ParameterName: p.Name, Text: p.Text})
	}
	return out, nil
}

func buildTemplate(t *Template) (*wireTemplate, error) {
	if t.Name == "" || t.Language == "" {
		return nil, invalid("template message needs a name and a language code")
	}
	if len(t.HeaderText) > 0 && t.HeaderMedia != nil {
		return nil, invalid("template header takes text or media, not both")
	}
	if len(t.HeaderText) > 1 {
		return nil, invalid("template text header takes at most 1 parameter, has %d", len(t.HeaderText))
	}
	w := &wireTemplate{Name: t.Name, Language: wireLanguage{Code: t.Language}}
	if len(t.HeaderText) > 0 {
		ps, err := textParams("header", t.HeaderText)
		if err != nil {
			return nil, err
		}
		w.Components = append(w.Components, wireComponent{Type: "header", Parameters: ps})
	}
	if t.HeaderMedia != nil {
		wm, err := mediaObject(t.HeaderMedia, false)
		if err != nil {
			return nil, err
		}
		p := wireParam{Type: string(t.HeaderMedia.Kind)}
		switch t.HeaderMedia.Kind {
		case MediaImage:
			p.Image = wm
		case MediaVideo:
			p.Video = wm
		case MediaDocument:
			p.Document = wm
		default:
			return nil, invalid("template header takes an image, video or document, not %s", t.HeaderMedia.Kind)
		}
		w.Components = append(w.Components, wireComponent{Type: "header", Parameters: []wireParam{p}})
	}
	if len(t.Body) > 0 {
		ps, err := textParams("body", t.Body)
		if err != nil {
			return nil, err
		}
		w.Components = append(w.Components, wireComponent{Type: "body", Parameters: ps})
	}
	seen := map[int]bool{}
	for _, b := range t.Buttons {
		if b.Index < 0 || seen[b.Index] {
			return nil, invalid("template button index %d is negative or repeated", b.Index)
		}
		seen[b.Index] = true
		var p wireParam
		switch b.SubType {
		case ButtonURL:
			p = wireParam{Type: "text", Text: b.Value}
		case ButtonQuickReply:
			p = wireParam{Type: "payload", Payload: b.Value}
		default:
			return nil, invalid("template button sub type %q is not %q or %q", b.SubType, ButtonURL, ButtonQuickReply)
		}
		if b.Value == "" {
			return nil, invalid("template button %d needs a value", b.Index)
		}
		w.Components = append(w.Components, wireComponent{
			Type: "button", SubType: b.SubType, Index: strconv.Itoa(b.Index), Parameters: []wireParam{p},
		})
	}
	return w, nil
}
