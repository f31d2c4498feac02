// Package settings owns the organization's settings (its name, time zone,
// date format, phone number masking, calling limits, transfer timeout,
// open registration: columns of the organization) and its single sign-on
// provider configurations: the client id and the client secret, encrypted
// at rest through secrets.Box and never returned; the default role of
// accounts created by sign-in, which must be a role of the organization;
// the allowed email domains; the custom provider's endpoints, https URLs.
// It also lists the enabled providers for the login page. The sign-in
// flow itself is package sso's, which reads these configurations; the
// organization's people and roles are packages people and roles'.
// Transports (rest/, graph/) call its Service.
package settings

import (
	"context"
	"strings"
	"time"

	// Timezone validation must not depend on the host having tzdata
	// (minimal container images do not).
	_ "time/tzdata"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/ssoconfig"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
	"switchboard/secrets"
)

// Bounds of the organization settings.
const (
	MaxOrgName             = 200
	MaxDateFormat          = 32
	MaxCallDurationSecs    = 86400
	MaxTransferTimeoutSecs = 3600
	MaxSSOField            = 2048
)

// Service is the settings' operations.
type Service struct {
	Client *ent.Client
	// Secrets encrypts the SSO client secrets.
	Secrets *secrets.Box
}

// OrgChanges are the settings to change; nil fields keep their value.
type OrgChanges struct {
	Name                  *string
	MaskPhoneNumbers      *bool
	Timezone              *string
	DateFormat            *string
	CallingEnabled        *bool
	MaxCallDuration       *int
	TransferTimeoutSecs   *int
	AllowOpenRegistration *bool
}

// SSOInput is the whole configuration of one provider. A nil or blank
// ClientSecret keeps the stored one; a nil DefaultRole is "agent"; the
// URLs belong to the custom provider only.
type SSOInput struct {
	Provider        ssoconfig.Provider
	ClientID        string
	ClientSecret    *string
	IsEnabled       bool
	AllowAutoCreate bool
	DefaultRole     *string
	AllowedDomains  *string
	AuthURL         *string
	TokenURL        *string
	UserInfoURL     *string
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Org returns the viewer's organization, whose columns are its settings.
// Errors: not_found.
func (s *Service) Org(ctx context.Context) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.NotFoundf("organization not found")
	}
	o, err := s.db(ctx).Organization.Get(ctx, v.OrgID)
	return o, apperr.Wrap(err, "organization")
}

// UpdateOrg changes the given settings of the viewer's organization;
// absent fields keep their value. Errors: not_found, invalid (empty or too
// long name; a timezone that is not an IANA zone name; an empty or too
// long date format; a max_call_duration outside 1..86400 or a
// transfer_timeout_secs outside 1..3600 seconds).
func (s *Service) UpdateOrg(ctx context.Context, in OrgChanges) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.NotFoundf("organization not found")
	}
	u := s.db(ctx).Organization.UpdateOneID(v.OrgID)
	if in.Name != nil {
		name, err := nonEmpty("name", *in.Name, MaxOrgName)
		if err != nil {
			return nil, err
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
		f, err := nonEmpty("date_format", *in.DateFormat, MaxDateFormat)
		if err != nil {
			return nil, err
		}
		u.SetDateFormat(f)
	}
	if d := in.MaxCallDuration; d != nil && (*d < 1 || *d > MaxCallDurationSecs) {
		return nil, apperr.Invalidf("max_call_duration must be between 1 and %d seconds", MaxCallDurationSecs)
	}
	if t := in.TransferTimeoutSecs; t != nil && (*t < 1 || *t > MaxTransferTimeoutSecs) {
		return nil, apperr.Invalidf("transfer_timeout_secs must be between 1 and %d seconds", MaxTransferTimeoutSecs)
	}
	o, err := u.SetNillableMaskPhoneNumbers(in.MaskPhoneNumbers).
		SetNillableCallingEnabled(in.CallingEnabled).
		SetNillableMaxCallDuration(in.MaxCallDuration).
		SetNillableTransferTimeoutSecs(in.TransferTimeoutSecs).
		SetNillableAllowOpenRegistration(in.AllowOpenRegistration).
		Save(ctx)
	return o, apperr.Wrap(err, "organization")
}

// nonEmpty trims a setting that cannot be emptied and checks it (at most
// maxLen characters, no NUL).
func nonEmpty(field, s string, maxLen int) (string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", apperr.Invalidf("%s cannot be empty", field)
	}
	return t, valid.Check(field, t, maxLen)
}

// SSOConfigs returns the SSO configurations of the viewer's organization,
// ordered by provider.
func (s *Service) SSOConfigs(ctx context.Context) ([]*ent.SSOConfig, error) {
	cs, err := s.db(ctx).SSOConfig.Query().Order(ent.Asc(ssoconfig.FieldProvider)).All(ctx)
	return cs, apperr.Wrap(err, "SSO configuration")
}

// HasSSOSecret reports whether a configuration holds a client secret (the
// secret itself is never returned).
func HasSSOSecret(c *ent.SSOConfig) bool { return len(c.ClientSecretEncrypted) > 0 }

// CheckProvider checks that p names a known provider. Errors: invalid.
func CheckProvider(p ssoconfig.Provider) error {
	if ssoconfig.ProviderValidator(p) != nil {
		return apperr.Invalidf("provider must be one of google, microsoft, github, facebook, custom")
	}
	return nil
}

// SaveSSO creates or replaces the organization's configuration of one
// provider. The client secret is encrypted at rest; an absent or blank
// client_secret keeps the stored one. default_role (default "agent") must
// name a role of the organization, case-insensitively. allowed_domains is
// a comma-separated list of email domains, stored normalized (lower case,
// no blanks); empty allows every domain. auth_url, token_url and
// user_info_url are required for, and only accepted by, the custom
// provider; they must be https URLs (http only for localhost). Errors:
// invalid (each rule above; an unknown provider; enabling a provider
// without a client secret), internal (no encryption key).
func (s *Service) SaveSSO(ctx context.Context, in SSOInput) (*ent.SSOConfig, error) {
	if err := CheckProvider(in.Provider); err != nil {
		return nil, err
	}
	clientID := strings.TrimSpace(in.ClientID)
	if clientID == "" {
		return nil, apperr.Invalidf("client_id is required")
	}
	if len(clientID) > MaxSSOField {
		return nil, apperr.Invalidf("client_id must be at most %d characters", MaxSSOField)
	}
	defaultRole, err := s.defaultRole(ctx, in.DefaultRole)
	if err != nil {
		return nil, err
	}
	domains := ""
	if in.AllowedDomains != nil {
		if domains, err = NormalizeDomains(*in.AllowedDomains); err != nil {
			return nil, err
		}
	}
	urls, err := endpoints(in)
	if err != nil {
		return nil, err
	}
	var sealed []byte
	if in.ClientSecret != nil && strings.TrimSpace(*in.ClientSecret) != "" {
		if sealed, err = s.Secrets.SealField("client_secret", *in.ClientSecret, MaxSSOField); err != nil {
			return nil, err
		}
	}

	db := s.db(ctx)
	cur, err := db.SSOConfig.Query().Where(ssoconfig.ProviderEQ(in.Provider)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, apperr.Wrap(err, "SSO configuration")
	}
	if in.IsEnabled && sealed == nil && (cur == nil || !HasSSOSecret(cur)) {
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

// DeleteSSO removes the organization's configuration of a provider.
// Errors: invalid (unknown provider), not_found.
func (s *Service) DeleteSSO(ctx context.Context, provider ssoconfig.Provider) error {
	if err := CheckProvider(provider); err != nil {
		return err
	}
	n, err := s.db(ctx).SSOConfig.Delete().Where(ssoconfig.ProviderEQ(provider)).Exec(ctx)
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
func (s *Service) EnabledSSOProviders(ctx context.Context, orgID *uuid.UUID) ([]SSOProvider, error) {
	q := s.db(ctx).SSOConfig.Query().Where(ssoconfig.IsEnabled(true))
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

// defaultRole checks that name (default "agent") is a role of the
// organization, case-insensitively, and returns it trimmed.
func (s *Service) defaultRole(ctx context.Context, name *string) (string, error) {
	n := "agent"
	if name != nil && strings.TrimSpace(*name) != "" {
		n = strings.TrimSpace(*name)
	}
	ok, err := s.db(ctx).Role.Query().Where(role.NameEqualFold(n)).Exist(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "role")
	}
	if !ok {
		return "", apperr.Invalidf("default_role %q is not a role of this organization", n)
	}
	return n, nil
}
