package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/ssoconfig"
	"switchboard/settings"
)

// orgSettingsJSON is the spec's Organization settings.
type orgSettingsJSON struct {
	Name     string          `json:"name"`
	Settings orgSettingsBody `json:"settings"`
}

type orgSettingsBody struct {
	MaskPhoneNumbers    bool   `json:"mask_phone_numbers"`
	Timezone            string `json:"timezone"`
	DateFormat          string `json:"date_format"`
	CallingEnabled      bool   `json:"calling_enabled"`
	MaxCallDuration     int    `json:"max_call_duration"`
	TransferTimeoutSecs int    `json:"transfer_timeout_secs"`
	HoldMusicFile       string `json:"hold_music_file"`
	RingbackFile        string `json:"ringback_file"`
}

func presentOrgSettings(o *ent.Organization) orgSettingsJSON {
	return orgSettingsJSON{Name: o.Name, Settings: orgSettingsBody{
		MaskPhoneNumbers: o.MaskPhoneNumbers, Timezone: o.Timezone, DateFormat: o.DateFormat,
		CallingEnabled: o.CallingEnabled, MaxCallDuration: o.MaxCallDuration,
		TransferTimeoutSecs: o.TransferTimeoutSecs, HoldMusicFile: o.HoldMusicFile,
		RingbackFile: o.RingbackFile,
	}}
}

// ssoConfigJSON is the spec's SSO provider configuration; the client
// secret is never part of it.
type ssoConfigJSON struct {
	Provider        string `json:"provider"`
	ClientID        string `json:"client_id"`
	HasSecret       bool   `json:"has_secret"`
	IsEnabled       bool   `json:"is_enabled"`
	AllowAutoCreate bool   `json:"allow_auto_create"`
	DefaultRole     string `json:"default_role"`
	AllowedDomains  string `json:"allowed_domains"`
	AuthURL         string `json:"auth_url"`
	TokenURL        string `json:"token_url"`
	UserInfoURL     string `json:"user_info_url"`
}

func presentSSOConfig(c *ent.SSOConfig) ssoConfigJSON {
	return ssoConfigJSON{
		Provider: string(c.Provider), ClientID: c.ClientID, HasSecret: settings.HasSSOSecret(c),
		IsEnabled: c.IsEnabled, AllowAutoCreate: c.AllowAutoCreate, DefaultRole: c.DefaultRole,
		AllowedDomains: c.AllowedDomains, AuthURL: c.AuthURL, TokenURL: c.TokenURL, UserInfoURL: c.UserInfoURL,
	}
}

func (a *API) getOrgSettings(c *gin.Context) (int, any, error) {
	o, err := a.R.Settings.Org(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentOrgSettings(o), nil
}

// updateOrgSettingsBody is the JSON body of updateOrgSettings.
type updateOrgSettingsBody struct {
	Name                  *string `json:"name" minLength:"1" maxLength:"200"`
	MaskPhoneNumbers      *bool   `json:"mask_phone_numbers"`
	Timezone              *string `json:"timezone" example:"Europe/Berlin" description:"An IANA time zone name."`
	DateFormat            *string `json:"date_format" minLength:"1" maxLength:"32"`
	CallingEnabled        *bool   `json:"calling_enabled"`
	MaxCallDuration       *int    `json:"max_call_duration" minimum:"1" maximum:"86400" description:"Seconds."`
	TransferTimeoutSecs   *int    `json:"transfer_timeout_secs" minimum:"1" maximum:"3600"`
	AllowOpenRegistration *bool   `json:"allow_open_registration"`
}

func (a *API) updateOrgSettings(c *gin.Context) (int, any, error) {
	var b updateOrgSettingsBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	_, err := a.R.Settings.UpdateOrg(ctx(c), settings.OrgChanges{
		Name: b.Name, MaskPhoneNumbers: b.MaskPhoneNumbers, Timezone: b.Timezone,
		DateFormat: b.DateFormat, CallingEnabled: b.CallingEnabled, MaxCallDuration: b.MaxCallDuration,
		TransferTimeoutSecs: b.TransferTimeoutSecs, AllowOpenRegistration: b.AllowOpenRegistration,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Settings updated"}, nil
}

func (a *API) listSSOConfigs(c *gin.Context) (int, any, error) {
	cs, err := a.R.Settings.SSOConfigs(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	out := make([]ssoConfigJSON, len(cs))
	for i, sc := range cs {
		out[i] = presentSSOConfig(sc)
	}
	return http.StatusOK, out, nil
}

// pathProvider reads the :provider path parameter as an SSO provider.
func pathProvider(c *gin.Context) (ssoconfig.Provider, error) {
	p := ssoconfig.Provider(c.Param("provider"))
	if err := settings.CheckProvider(p); err != nil {
		return "", err
	}
	return p, nil
}

// saveSSOConfigBody is the JSON body of saveSSOConfig.
type saveSSOConfigBody struct {
	ClientID        *string `json:"client_id" required:"true" nullable:"false" minLength:"1" example:"1234567890-abc.apps.googleusercontent.com" description:"At most 2048 bytes."`
	ClientSecret    *string `json:"client_secret" description:"At most 2048 bytes; write-only. Blank: kept. Required to enable a provider that has none stored."`
	IsEnabled       *bool   `json:"is_enabled" required:"true" nullable:"false"`
	AllowAutoCreate *bool   `json:"allow_auto_create" required:"true" nullable:"false"`
	DefaultRole     *string `json:"default_role" description:"The name of a role of the organization; default agent."`
	AllowedDomains  *string `json:"allowed_domains" description:"Comma-separated email domains; empty: any."`
	AuthURL         *string `json:"auth_url" description:"Required for the custom provider (an https URL), refused for the others."`
	TokenURL        *string `json:"token_url" description:"Required for the custom provider (an https URL), refused for the others."`
	UserInfoURL     *string `json:"user_info_url" description:"Required for the custom provider (an https URL), refused for the others."`
}

func (a *API) saveSSOConfig(c *gin.Context) (int, any, error) {
	provider, err := pathProvider(c)
	if err != nil {
		return 0, nil, err
	}
	var b saveSSOConfigBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	switch {
	case b.ClientID == nil:
		return 0, nil, apperr.Invalidf("client_id is required")
	case b.IsEnabled == nil:
		return 0, nil, apperr.Invalidf("is_enabled is required")
	case b.AllowAutoCreate == nil:
		return 0, nil, apperr.Invalidf("allow_auto_create is required")
	}
	sc, err := a.R.Settings.SaveSSO(ctx(c), settings.SSOInput{
		Provider: provider, ClientID: *b.ClientID, ClientSecret: b.ClientSecret,
		IsEnabled: *b.IsEnabled, AllowAutoCreate: *b.AllowAutoCreate, DefaultRole: b.DefaultRole,
		AllowedDomains: b.AllowedDomains, AuthURL: b.AuthURL, TokenURL: b.TokenURL, UserInfoURL: b.UserInfoURL,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentSSOConfig(sc), nil
}

func (a *API) deleteSSOConfig(c *gin.Context) (int, any, error) {
	provider, err := pathProvider(c)
	if err != nil {
		return 0, nil, err
	}
	if err := a.R.Settings.DeleteSSO(ctx(c), provider); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "SSO configuration deleted"}, nil
}

// listSSOProviders is the login page's discovery of enabled providers.
func (a *API) listSSOProviders(c *gin.Context) (int, any, error) {
	ps, err := a.R.Settings.EnabledSSOProviders(ctx(c), queryOf[ssoQuery](c).OrganizationID)
	if err != nil {
		return 0, nil, err
	}
	out := make([]ssoProviderData, len(ps))
	for i, p := range ps {
		out[i] = ssoProviderData{Provider: string(p.Provider), Name: p.Name}
	}
	return http.StatusOK, out, nil
}

// settingsRoutes: organization settings and SSO configuration, plus the
// public SSO discovery of the login page (it shows provider names only).
func (a *API) settingsRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/org/settings", Op: "orgSettings", Out: orgSettingsJSON{}, Handle: a.getOrgSettings},
		{Method: put, Path: "/api/org/settings", Op: "updateOrgSettings", In: updateOrgSettingsBody{}, Out: messageData{}, Handle: a.updateOrgSettings},
		{Method: get, Path: "/api/settings/sso", Op: "ssoConfigs", Out: []ssoConfigJSON{}, Handle: a.listSSOConfigs},
		{Method: put, Path: "/api/settings/sso/:provider", Op: "saveSSOConfig", In: saveSSOConfigBody{}, Out: ssoConfigJSON{}, Handle: a.saveSSOConfig},
		{Method: del, Path: "/api/settings/sso/:provider", Op: "deleteSSOConfig", Out: messageData{}, Handle: a.deleteSSOConfig},
		{Method: get, Path: "/api/auth/sso/providers", Op: "ssoProviders", Query: ssoQuery{}, Out: []ssoProviderData{}, Handle: a.listSSOProviders},
	}
}
