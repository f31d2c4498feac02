package customactions

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"switchboard/apperr"
	"switchboard/ent/customaction"
	"switchboard/internal/placeholder"
	"switchboard/internal/valid"
	"switchboard/netguard"
	"switchboard/webhooks"
)

// Bounds of an action's configuration.
const (
	MaxConfigBytes  = 96 << 10
	MaxBodyTemplate = 16 << 10
	MaxCode         = 64 << 10
	MaxURLLength    = netguard.MaxURLLength
	DefaultMethod   = "POST"
)

// methods are the HTTP methods a webhook action may use.
var methods = map[string]bool{"POST": true, "GET": true, "PUT": true, "PATCH": true}

// webhookConfig is the config of a webhook action.
type webhookConfig struct {
	URL     *string            `json:"url"`
	Method  *string            `json:"method"`
	Headers map[string]*string `json:"headers"`
	Body    *string            `json:"body"`
}

// urlConfig is the config of a url action.
type urlConfig struct {
	URL          *string `json:"url"`
	OpenInNewTab *bool   `json:"open_in_new_tab"`
}

// jsConfig is the config of a javascript action.
type jsConfig struct {
	Code *string `json:"code"`
}

// CheckConfig validates the config of an action of type typ exactly as the
// spec's "Config by type" describes it and returns it normalized (defaults
// filled, method upper-cased, headers trimmed). Unknown keys are refused.
// URLs may hold template variables ({{contact.id}}); they are checked with
// every variable replaced by a sample value. allowPrivate lets webhook URLs
// name private addresses (OUTBOUND_ALLOW_PRIVATE). Errors: invalid.
func CheckConfig(typ customaction.ActionType, config map[string]any, allowPrivate bool) (map[string]any, error) {
	if config == nil {
		return nil, apperr.Invalidf("config is required")
	}
	raw, err := json.Marshal(config)
	if err != nil {
		return nil, apperr.Invalidf("config must be a JSON object")
	}
	if len(raw) > MaxConfigBytes {
		return nil, apperr.Invalidf("config must be at most %d bytes", MaxConfigBytes)
	}
	switch typ {
	case customaction.ActionTypeWebhook:
		var c webhookConfig
		if err := strictDecode(raw, &c); err != nil {
			return nil, err
		}
		u, err := checkURL(c.URL, true, allowPrivate)
		if err != nil {
			return nil, err
		}
		method := DefaultMethod
		if c.Method != nil && strings.TrimSpace(*c.Method) != "" {
			method = strings.ToUpper(strings.TrimSpace(*c.Method))
			if !methods[method] {
				return nil, apperr.Invalidf("config.method must be one of POST, GET, PUT, PATCH")
			}
		}
		headers := map[string]string{}
		for k, v := range c.Headers {
			if v == nil {
				return nil, apperr.Invalidf("config.headers: the value of %s must be a string", k)
			}
			headers[k] = *v
		}
		if headers, err = webhooks.CheckHeaders(headers); err != nil {
			return nil, apperr.Invalidf("config.%s", err.Error())
		}
		body := ""
		if c.Body != nil {
			body = *c.Body
		}
		if len(body) > MaxBodyTemplate {
			return nil, apperr.Invalidf("config.body must be at most %d bytes", MaxBodyTemplate)
		}
		if err := valid.NoNUL("config.body", body); err != nil {
			return nil, err
		}
		hs := make(map[string]any, len(headers))
		for k, v := range headers {
			hs[k] = v
		}
		return map[string]any{"url": u, "method": method, "headers": hs, "body": body}, nil
	case customaction.ActionTypeURL:
		var c urlConfig
		if err := strictDecode(raw, &c); err != nil {
			return nil, err
		}
		// The browser opens it: any public or intranet http(s) address.
		u, err := checkURL(c.URL, false, true)
		if err != nil {
			return nil, err
		}
		newTab := true
		if c.OpenInNewTab != nil {
			newTab = *c.OpenInNewTab
		}
		return map[string]any{"url": u, "open_in_new_tab": newTab}, nil
	case customaction.ActionTypeJavascript:
		var c jsConfig
		if err := strictDecode(raw, &c); err != nil {
			return nil, err
		}
		if c.Code == nil || strings.TrimSpace(*c.Code) == "" {
			return nil, apperr.Invalidf("config.code is required")
		}
		if len(*c.Code) > MaxCode {
			return nil, apperr.Invalidf("config.code must be at most %d bytes", MaxCode)
		}
		if err := valid.NoNUL("config.code", *c.Code); err != nil {
			return nil, err
		}
		return map[string]any{"code": *c.Code}, nil
	}
	return nil, apperr.Invalidf("action_type must be one of webhook, url, javascript")
}

// strictDecode decodes a config object, refusing unknown keys and wrong
// types with a message naming the key.
func strictDecode(raw []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case asTypeError(err, &te):
			return apperr.Invalidf("config.%s has the wrong type", te.Field)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return apperr.Invalidf("config: %s is not a field of this action type", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return apperr.Invalidf("config is not valid for this action type")
	}
	return nil
}

func asTypeError(err error, te **json.UnmarshalTypeError) bool {
	t, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*te = t
	}
	return ok
}

// checkURL checks a URL template: required, http or https, with a host,
// once every variable is replaced by a sample value. guard applies the
// outbound address policy (the server itself calls webhook URLs).
func checkURL(p *string, guard, allowPrivate bool) (string, error) {
	if p == nil || strings.TrimSpace(*p) == "" {
		return "", apperr.Invalidf("config.url is required")
	}
	raw := strings.TrimSpace(*p)
	if len(raw) > MaxURLLength {
		return "", apperr.Invalidf("config.url must be at most %d characters", MaxURLLength)
	}
	sample, err := placeholder.URL(raw, placeholder.Sample)
	if err != nil {
		return "", apperr.Invalidf("config.url: %s", err.Error())
	}
	if guard {
		if err := netguard.ValidateURL(sample, allowPrivate); err != nil {
			return "", apperr.Invalidf("config.url: %s", err.Error())
		}
		return raw, nil
	}
	if err := plainURL(sample); err != nil {
		return "", apperr.Invalidf("config.url: %s", err.Error())
	}
	return raw, nil
}

// plainURL accepts absolute http and https URLs with a host and no
// credentials: what a browser may be sent to.
func plainURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return apperr.Invalidf("the URL cannot be parsed")
	case u.Scheme != "http" && u.Scheme != "https":
		return apperr.Invalidf("the URL must start with http:// or https://")
	case u.Host == "" || u.Opaque != "":
		return apperr.Invalidf("the URL must include a host")
	case u.User != nil:
		return apperr.Invalidf("the URL must not contain a user name or password")
	}
	return nil
}
