package settings

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"switchboard/apperr"
	"switchboard/ent/ssoconfig"
)

// domainPattern is a DNS name with at least two labels and an alphabetic
// top-level label.
var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// NormalizeDomains validates a comma-separated list of email domains and
// returns it lower-cased, trimmed and without duplicates. Errors: invalid.
func NormalizeDomains(list string) (string, error) {
	var out []string
	seen := map[string]bool{}
	for _, d := range strings.Split(list, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if len(d) > 253 || !domainPattern.MatchString(d) {
			return "", apperr.Invalidf("allowed_domains: %q is not a domain name (give a comma-separated list such as example.com,example.org)", d)
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return strings.Join(out, ","), nil
}

// endpoints returns auth, token and user-info URLs: required https URLs
// for the custom provider, empty for the others (which have fixed
// endpoints).
func endpoints(in SSOInput) ([3]string, error) {
	fields := [3]struct {
		name string
		val  *string
	}{{"auth_url", in.AuthURL}, {"token_url", in.TokenURL}, {"user_info_url", in.UserInfoURL}}
	var out [3]string
	for i, f := range fields {
		v := ""
		if f.val != nil {
			v = strings.TrimSpace(*f.val)
		}
		if in.Provider != ssoconfig.ProviderCustom {
			if v != "" {
				return out, apperr.Invalidf("%s applies only to the custom provider", f.name)
			}
			continue
		}
		if v == "" {
			return out, apperr.Invalidf("%s is required for the custom provider", f.name)
		}
		if err := checkEndpoint(f.name, v); err != nil {
			return out, err
		}
		out[i] = v
	}
	return out, nil
}

// checkEndpoint accepts absolute https URLs, and http ones on localhost.
func checkEndpoint(name, raw string) error {
	if len(raw) > MaxSSOField {
		return apperr.Invalidf("%s must be at most %d characters", name, MaxSSOField)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return apperr.Invalidf("%s must be an absolute https URL", name)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLocalhost(u.Hostname()) {
			return nil
		}
		return apperr.Invalidf("%s must use https (http is allowed only for localhost)", name)
	}
	return apperr.Invalidf("%s must be an absolute https URL", name)
}

func isLocalhost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
