package ivr

import (
	"errors"
	"fmt"
	"strings"

	"switchboard/internal/placeholder"
	"switchboard/netguard"
)

// callVariables gives the call's variables to {{name}} placeholders;
// unknown names become empty.
func callVariables(vars map[string]string) placeholder.Values {
	return func(name string) (string, bool) { return vars[name], true }
}

// expandText fills a prompt's text (values as they are).
func expandText(tmpl string, vars map[string]string) string {
	return placeholder.Text(tmpl, callVariables(vars))
}

// callbackRequest fills an HTTP callback with the call's variables, each
// encoded for where it lands (internal/placeholder): percent-encoded in
// the URL's path segment or query, a JSON string in a JSON body, refused
// in a header when it holds a line break. So a caller's input or a
// stored answer cannot change the request's path, parameters, members or
// headers. Errors: a value the request cannot carry.
func callbackRequest(h *HTTPCallback, vars map[string]string) (HTTPRequest, error) {
	vals := callVariables(vars)
	target, err := placeholder.URL(h.URL, vals)
	if err != nil {
		return HTTPRequest{}, fmt.Errorf("url: %w", err)
	}
	req := HTTPRequest{Method: h.Method, URL: target, Timeout: h.Timeout}
	contentType := ""
	if len(h.Headers) > 0 {
		req.Headers = make(map[string]string, len(h.Headers))
		for k, v := range h.Headers {
			if req.Headers[k], err = placeholder.Header(v, vals); err != nil {
				return HTTPRequest{}, fmt.Errorf("header %s: %w", k, err)
			}
			if strings.EqualFold(k, "Content-Type") {
				contentType = req.Headers[k]
			}
		}
	}
	if req.Body, err = placeholder.Body(h.Body, contentType, vals); err != nil {
		return HTTPRequest{}, fmt.Errorf("body: %w", err)
	}
	return req, nil
}

// sampleURL is a URL template with every variable given a sample value.
func sampleURL(raw string) (string, error) {
	return placeholder.URL(raw, placeholder.Sample)
}

// checkURLFormat checks a URL template when a menu is parsed: an absolute
// http or https URL with a host once variables are filled. The address
// policy is Validate's (it depends on the server's settings).
func checkURLFormat(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("a URL is required")
	}
	u, err := sampleURL(raw)
	if err != nil {
		return err
	}
	return netguard.ValidateURL(u, true)
}

// checkURLAddress applies netguard's outbound rules to a URL template.
func checkURLAddress(raw string, allowPrivate bool) error {
	u, err := sampleURL(raw)
	if err != nil {
		return err
	}
	return netguard.ValidateURL(u, allowPrivate)
}
