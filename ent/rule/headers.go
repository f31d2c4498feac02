package rule

import (
	"context"

	"switchboard/ent/viewer"
)

// headersKey marks a context whose reads see header values in full.
type headersKey struct{}

// RevealHeaders returns a context whose reads of custom actions and
// webhook subscriptions keep their header values whatever the viewer's
// permissions: for the code that sends them (executing a custom action
// for an Agent). reason documents the call site.
func RevealHeaders(ctx context.Context, reason string) context.Context {
	_ = reason
	return context.WithValue(ctx, headersKey{}, true)
}

// HeaderValuesVisible reports whether a read in ctx keeps the header
// values that editPermission guards: the viewer may edit them (and must
// see them to), is a system actor, or the code reading them sends them
// (RevealHeaders, or a privacy-bypassed read without a viewer). The
// credentials in those headers (a CRM's bearer token) are write-only to
// everyone else.
func HeaderValuesVisible(ctx context.Context, editPermission string) bool {
	if revealed, _ := ctx.Value(headersKey{}).(bool); revealed {
		return true
	}
	v := viewer.FromContext(ctx)
	return v == nil || v.Can(editPermission)
}

// RedactHeaders returns the header names of h with every value emptied
// (nil for nil).
func RedactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k := range h {
		out[k] = ""
	}
	return out
}
