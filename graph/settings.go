package graph

import (
	"context"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	// Timezone validation must not depend on the host having tzdata
	// (minimal container images do not).
	_ "time/tzdata"
	"unicode/utf8"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/viewer"
	"switchboard/graph/model"
)

// Bounds of the organization settings.
const (
	maxOrgName             = 200
	maxDateFormat          = 32
	maxCallDurationSecs    = 86400
	maxTransferTimeoutSecs = 3600
	maxSSOField            = 2048
)

// OrgSettings returns the viewer's organization, whose columns are its
// settings. Errors: not_found.
func (r *Resolver) OrgSettings(ctx context.Context) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.NotFoundf("organization not found")
	}
	o, err := r.db(ctx).Organization.Get(ctx, v.OrgID)
	return o, apperr.Wrap(err, "organization")
}

// UpdateOrgSettings changes the given settings of the viewer's
// organization; absent fields keep their value. Errors: not_found, invalid
// (empty or too long name; a timezone that is not an IANA zone name; an
// empty or too long date format; a max_call_duration outside 1..86400 or a
// transfer_timeout_secs outside 1..3600 seconds).
func (r *Resolver) UpdateOrgSettings(ctx context.Context, in model.UpdateOrgSettingsInput) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.NotFoundf("organization not found")
	}
	u := r.db(ctx).Organization.UpdateOneID(v.OrgID)
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if name == "" {
			return nil, apperr.Invalidf("name cannot be empty")
		}
		if utf8.RuneCountInString(name) > maxOrgName {
			return nil, apperr.Invalidf("name must be at most %d characters", maxOrgName)
		}
		u.SetName(name)
	}
	if in.Timezone != nil {
		tz := strings.TrimSpace(*in.Timezone)
		if _, err := time.LoadLocation(tz); err != nil || tz == "" || tz == "Local" {
			return nil, apperr.Invalidf("timezone %q is not an IANA time zone name (for example Europe/Berlin or UTC)", *in.Timezone)
		}
		u.SetTimezone(tz)
	}
	if in.DateFormat != nil {
		f := strings.TrimSpace(*in.DateFormat)
		if f == "" {
			return nil, apperr.Invalidf("date_format cannot be empty")
		}
		if utf8.RuneCountInString(f) > maxDateFormat {
			return nil, apperr.Invalidf("date_format must be at most %d characters", maxDateFormat)
		}
		u.SetDateFormat(f)
	}
	if d := in.MaxCallDuration; d != nil && (*d < 1 || *d > maxCallDurationSecs) {
		return nil, apperr.Invalidf("max_call_duration must be between 1 and %d seconds", maxCallDurationSecs)
	}
	if t := in.TransferTimeoutSecs; t != nil && (*t < 1 || *t > maxTransferTimeoutSecs) {
		return nil, apperr.Invalidf("transfer_timeout_secs must be between 1 and %d seconds", maxTransferTimeoutSecs)
	}
	o, err := u.SetNillableMaskPhoneNumbers(in.MaskPhoneNumbers).
		SetNillableCallingEnabled(in.CallingEnabled).
		SetNillableMaxCallDuration(in.MaxCallDuration).
		SetNillableTransferTimeoutSecs(in.TransferTimeoutSecs).
		SetNillableAllowOpenRegistration(in.AllowOpenRegistration).
		Save(ctx)
	return o, apperr.Wrap(err, "organization")
}

// SSOConfigs returns the SSO configurations of the viewer's organization,
// ordered by provider.
func (r *Resolver) SSOConfigs(ctx context.Context) ([]*ent.SSOConfig, error) {
	cs, err := r.db(ctx).SSOConfig.Query().Order(ent.Asc(ssoconfig.FieldProvider)).All(ctx)
	return cs, apperr.Wrap(err, "SSO configuration")
}

// SSOHasSecret reports whether a configuration holds a client secret (the
// secret itself is never returned).
func SSOHasSecret(c *ent.SSOConfig) bool { return len(c.ClientSecretEncrypted) > 0 }

// SaveSSOConfig creates or replaces the organization's configuration of one
// provider. The client secret is encrypted at rest; an absent or blank
// client_secret keeps the stored one. default_role (default "agent") must
// name a role of the organization, case-insensitively. allowed_domains is a
// comma-separated list of email domains, stored normalized (lower case, no
// blanks); empty allows every domain. auth_url, token_url and user_info_url
// are required for, and only accepted by, the custom provider; they must be
// https URLs (http only for localhost). Errors: invalid (each rule above; an
// unknown provider; enabling a provider without a client secret).
func (r *Resolver) SaveSSOConfig(ctx context.Context, in model.SaveSSOConfigInput) (*ent.SSOConfig, error) {
	if err := ssoconfig.ProviderValidator(in.Provider); err != nil {
		return nil, apperr.Invalidf("provider must be one of google, microsoft, github, facebook, custom")
	}
	clientID := strings.TrimSpace(in.ClientID)
	if clientID == "" {
		return nil, apperr.Invalidf("client_id is required")
	}
	if len(clientID) > maxSSOField {
		return nil, apperr.Invalidf("client_id must be at most %d characters", maxSSOField)
	}
	defaultRole, err := r.ssoDefaultRole(ctx, in.DefaultRole)
	if err != nil {
		return nil, err
	}
	domains := ""
	if in.AllowedDomains != nil {
		if domains, err = normalizeDomains(*in.AllowedDomains); err != nil {
			return nil, err
		}
	}
	urls, err := ssoURLs(in)
	if err != nil {
		return nil, err
	}
	var sealed []byte
	if in.ClientSecret != nil && strings.TrimSpace(*in.ClientSecret) != "" {
		if len(*in.ClientSecret) > maxSSOField {
			return nil, apperr.Invalidf("client_secret must be at most %d characters", maxSSOField)
		}
		if r.Secrets == nil {
			return nil, apperr.New(apperr.Internal, "encryption is not configured")
		}
		sealed = r.Secrets.Seal([]byte(*in.ClientSecret))
	}

	db := r.db(ctx)
	cur, err := db.SSOConfig.Query().Where(ssoconfig.ProviderEQ(in.Provider)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, apperr.Wrap(err, "SSO configuration")
	}
	if in.IsEnabled && sealed == nil && (cur == nil || !SSOHasSecret(cur)) {
		return nil, apperr.Invalidf("client_secret is required to enable the %s provider", in.Provider)
	}
	if cur == nil {
		c := db.SSOConfig.Create().SetProvider(in.Provider).SetClientID(clientID).
			SetIsEnabled(in.IsEnabled).SetAllowAutoCreate(in.AllowAutoCreate).
			SetDefaultRole(defaultRole).SetAllowedDomains(domains).
			SetAuthURL(urls[0]).SetTokenURL(urls[1]).SetUserInfoURL(urls[2])
		if sealed != nil {
			c.SetClientSecretEncrypted(sealed)
		}
		saved, err := c.Save(ctx)
		return saved, apperr.Wrap(err, "SSO configuration")
	}
	u := cur.Update().SetClientID(clientID).
		SetIsEnabled(in.IsEnabled).SetAllowAutoCreate(in.AllowAutoCreate).
		SetDefaultRole(defaultRole).SetAllowedDomains(domains).
		SetAuthURL(urls[0]).SetTokenURL(urls[1]).SetUserInfoURL(urls[2])
	if sealed != nil {
		u.SetClientSecretEncrypted(sealed)
	}
	saved, err := u.Save(ctx)
	return saved, apperr.Wrap(err, "SSO configuration")
}

// DeleteSSOConfig removes the organization's configuration of a provider.
// Errors: invalid (unknown provider), not_found.
func (r *Resolver) DeleteSSOConfig(ctx context.Context, provider ssoconfig.Provider) error {
	if err := ssoconfig.ProviderValidator(provider); err != nil {
		return apperr.Invalidf("provider must be one of google, microsoft, github, facebook, custom")
	}
	n, err := r.db(ctx).SSOConfig.Delete().Where(ssoconfig.ProviderEQ(provider)).Exec(ctx)
	if err != nil {
		return apperr.Wrap(err, "SSO configuration")
	}
	if n == 0 {
		return apperr.NotFoundf("SSO configuration for %s not found", provider)
	}
	return nil
}

// SSOProvider is an enabled identity provider as shown on a login page.
type SSOProvider struct {
	Provider ssoconfig.Provider
	// Name is the provider's display name.
	Name string
}

// ssoProviderOrder is the fixed display order and the display names.
var ssoProviderOrder = []SSOProvider{
	{ssoconfig.ProviderGoogle, "Google"},
	{ssoconfig.ProviderMicrosoft, "Microsoft"},
	{ssoconfig.ProviderGithub, "GitHub"},
	{ssoconfig.ProviderFacebook, "Facebook"},
	{ssoconfig.ProviderCustom, "Single sign-on"},
}

// EnabledSSOProviders lists enabled providers for a login page, which has
// no viewer: those of orgID when given (an unknown organization has none),
// otherwise every provider enabled by some organization. Only provider
// names leave this operation.
func (r *Resolver) EnabledSSOProviders(ctx context.Context, orgID *uuid.UUID) ([]SSOProvider, error) {
	q := r.db(ctx).SSOConfig.Query().Where(ssoconfig.IsEnabled(true))
	if orgID != nil {
		// Acting inside that one organization: the tenant filter applies.
		ctx = viewer.SystemContext(ctx, *orgID)
	} else {
		ctx = rule.Bypass(ctx, "public SSO discovery: distinct enabled provider names across organizations")
	}
	names, err := q.Unique(true).Select(ssoconfig.FieldProvider).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "SSO configuration")
	}
	enabled := make(map[string]bool, len(names))
	for _, n := range names {
		enabled[n] = true
	}
	out := make([]SSOProvider, 0, len(names))
	for _, p := range ssoProviderOrder {
		if enabled[string(p.Provider)] {
			out = append(out, p)
		}
	}
	return out, nil
}

// ssoDefaultRole checks that name (default "agent") is a role of the
// organization, case-insensitively, and returns it trimmed.
func (r *Resolver) ssoDefaultRole(ctx context.Context, name *string) (string, error) {
	n := "agent"
	if name != nil && strings.TrimSpace(*name) != "" {
		n = strings.TrimSpace(*name)
	}
	ok, err := r.db(ctx).Role.Query().Where(role.NameEqualFold(n)).Exist(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "role")
	}
	if !ok {
		return "", apperr.Invalidf("default_role %q is not a role of this organization", n)
	}
	return n, nil
}

// domainPattern is a DNS name with at least two labels and an alphabetic
// top-level label.
var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// normalizeDomains validates a comma-separated list of email domains and
// returns it lower-cased, trimmed and without duplicates.
func normalizeDomains(list string) (string, error) {
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

// ssoURLs returns auth, token and user-info URLs: required https URLs for
// the custom provider, empty for the others (which have fixed endpoints).
func ssoURLs(in model.SaveSSOConfigInput) ([3]string, error) {
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
		if err := validEndpoint(f.name, v); err != nil {
			return out, err
		}
		out[i] = v
	}
	return out, nil
}

// validEndpoint accepts absolute https URLs, and http ones on localhost.
func validEndpoint(name, raw string) error {
	if len(raw) > maxSSOField {
		return apperr.Invalidf("%s must be at most %d characters", name, maxSSOField)
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
