package netguard

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxURLLength is the longest URL ValidateURL accepts.
const MaxURLLength = 2048

// ValidateURL checks a URL a user wants us to call, when it is saved: an
// absolute http or https URL with a host, no user name or password, and a
// port from 1 to 65535 if one is given. Unless allowPrivate, a host that is
// an IP literal must pass CheckIP and "localhost" is refused. Host names are
// not resolved here (DNS can change before the request); the client built by
// NewClient checks what they resolve to when it connects.
//
// It returns an *InvalidURLError (errors.Is ErrInvalidURL) or a
// *BlockedAddressError (errors.Is ErrBlockedAddress); both messages are
// meant for the user.
func ValidateURL(raw string, allowPrivate bool) error {
	if raw == "" {
		return invalidURL("a URL is required")
	}
	if len(raw) > MaxURLLength {
		return invalidURL("the URL is longer than %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalidURL("the URL cannot be parsed")
	}
	switch u.Scheme {
	case "http", "https":
	case "":
		return invalidURL("the URL must start with http:// or https://")
	default:
		return invalidURL("the scheme %q is not allowed; use http or https", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return invalidURL("the URL must include a host")
	}
	if u.User != nil {
		return invalidURL("the URL must not contain a user name or password")
	}
	host := u.Hostname()
	if host == "" {
		return invalidURL("the URL must include a host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return invalidURL("the port %q is not valid", p)
		}
	}

	if ip, err := netip.ParseAddr(host); err == nil {
		if allowPrivate {
			return nil
		}
		return CheckIP(ip)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if looksNumeric(name) {
		// Forms such as 2130706433, 0x7f.1 or 127.1 are read as IPv4 by
		// some resolvers and never name a real host.
		return invalidURL("the host %q is neither a valid IP address nor a host name", host)
	}
	if !allowPrivate && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		return &BlockedAddressError{Host: host, Reason: reasonLoopback}
	}
	return nil
}

// looksNumeric reports whether the last label of a host name is a decimal
// or hexadecimal number; no top-level domain is.
func looksNumeric(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(last, "0x"); ok {
		if h == "" {
			return true
		}
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}
