package webhooks

import (
	"net/http"
	"strings"

	"switchboard/apperr"
	"switchboard/outbound"
)

// Bounds of a subscription's custom headers.
const (
	MaxHeaders         = 20
	maxHeaderNameLen   = 256
	maxHeaderValueLen  = 4096
	reservedHeaderNote = "it is set by the delivery itself"
)

// reservedHeaders are the headers a subscription may not set: hop-by-hop
// and framing headers the HTTP client owns, and the headers that carry the
// event and its signatures (a custom value would break verification).
var reservedHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Content-Type": true, "Content-Encoding": true,
	"Transfer-Encoding": true, "Connection": true, "Keep-Alive": true, "Proxy-Connection": true,
	"Proxy-Authorization": true, "Proxy-Authenticate": true, "Te": true, "Trailer": true,
	"Upgrade": true, "Expect": true,
	http.CanonicalHeaderKey(outbound.HeaderWebhookID):        true,
	http.CanonicalHeaderKey(outbound.HeaderWebhookTimestamp): true,
	http.CanonicalHeaderKey(outbound.HeaderWebhookSignature): true,
	http.CanonicalHeaderKey(outbound.HeaderSignature):        true,
	http.CanonicalHeaderKey(outbound.HeaderEvent):            true,
}

// CheckHeaders validates a subscription's custom headers: at most
// MaxHeaders, names that are HTTP tokens and not reserved (Host,
// Content-Type, the signature headers, ...), each name once whatever its
// case, values without control characters. It returns the headers with
// their values trimmed (an empty map for nil). Errors: invalid.
func CheckHeaders(h map[string]string) (map[string]string, error) {
	if len(h) > MaxHeaders {
		return nil, apperr.Invalidf("headers: at most %d headers are allowed", MaxHeaders)
	}
	out := make(map[string]string, len(h))
	seen := make(map[string]bool, len(h))
	for name, value := range h {
		canonical := http.CanonicalHeaderKey(name)
		switch {
		case name == "" || len(name) > maxHeaderNameLen || !isToken(name):
			return nil, apperr.Invalidf("headers: %q is not a valid header name", name)
		case reservedHeaders[canonical]:
			return nil, apperr.Invalidf("headers: %s cannot be set: %s", canonical, reservedHeaderNote)
		case seen[canonical]:
			return nil, apperr.Invalidf("headers: %s is given twice", canonical)
		}
		value = strings.TrimSpace(value)
		if len(value) > maxHeaderValueLen || !validHeaderValue(value) {
			return nil, apperr.Invalidf("headers: the value of %s must be at most %d characters without control characters", name, maxHeaderValueLen)
		}
		seen[canonical] = true
		out[name] = value
	}
	return out, nil
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue refuses control characters (CR and LF above all, which
// would split the header); tabs are allowed.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
