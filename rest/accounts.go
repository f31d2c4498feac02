package rest

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/provider"
)

// accountJSON is the spec's Account; the access token and app secret are
// write-only and shown only as has_* flags.
type accountJSON struct {
	ID                     uuid.UUID  `json:"id"`
	Name                   string     `json:"name"`
	AppID                  string     `json:"app_id"`
	PhoneID                string     `json:"phone_id"`
	BusinessID             string     `json:"business_id"`
	WebhookVerifyToken     string     `json:"webhook_verify_token"`
	APIVersion             string     `json:"api_version"`
	IsDefaultIncoming      bool       `json:"is_default_incoming"`
	IsDefaultOutgoing      bool       `json:"is_default_outgoing"`
	AutoReadReceipt        bool       `json:"auto_read_receipt"`
	BusinessCallingEnabled bool       `json:"business_calling_enabled"`
	Status                 string     `json:"status"`
	HasAccessToken         bool       `json:"has_access_token"`
	HasAppSecret           bool       `json:"has_app_secret"`
	CreatedByID            *uuid.UUID `json:"created_by_id"`
	CreatedByName          string     `json:"created_by_name"`
	UpdatedByID            *uuid.UUID `json:"updated_by_id"`
	UpdatedByName          string     `json:"updated_by_name"`
	CreatedAt              time.Time  `json:"created_at"`
	UpdatedAt              time.Time  `json:"updated_at"`
}

func presentAccount(v *accounts.View) accountJSON {
	a := v.Account
	return accountJSON{
		ID: a.ID, Name: a.Name, AppID: a.AppID, PhoneID: a.PhoneID, BusinessID: a.BusinessID,
		WebhookVerifyToken: a.WebhookVerifyToken, APIVersion: a.APIVersion,
		IsDefaultIncoming: a.IsDefaultIncoming, IsDefaultOutgoing: a.IsDefaultOutgoing,
		AutoReadReceipt: a.AutoReadReceipt, BusinessCallingEnabled: a.BusinessCallingEnabled,
		Status: string(a.Status), HasAccessToken: accounts.HasAccessToken(a), HasAppSecret: accounts.HasAppSecret(a),
		CreatedByID: a.CreatedByID, CreatedByName: v.CreatedByName,
		UpdatedByID: a.UpdatedByID, UpdatedByName: v.UpdatedByName,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

// phoneNumberJSON is the answer of an account's credential test.
type phoneNumberJSON struct {
	Success                bool   `json:"success"`
	DisplayPhoneNumber     string `json:"display_phone_number"`
	VerifiedName           string `json:"verified_name"`
	QualityRating          string `json:"quality_rating"`
	MessagingLimitTier     string `json:"messaging_limit_tier"`
	CodeVerificationStatus string `json:"code_verification_status"`
	AccountMode            string `json:"account_mode"`
	IsTestNumber           bool   `json:"is_test_number"`
}

func presentPhoneNumber(p *provider.PhoneNumber) phoneNumberJSON {
	return phoneNumberJSON{
		Success: true, DisplayPhoneNumber: p.DisplayPhoneNumber, VerifiedName: p.VerifiedName,
		QualityRating: p.QualityRating, MessagingLimitTier: p.MessagingLimitTier,
		CodeVerificationStatus: p.CodeVerificationStatus, AccountMode: p.AccountMode, IsTestNumber: p.IsTestNumber,
	}
}

// businessProfileJSON is the spec's business profile.
type businessProfileJSON struct {
	MessagingProduct  string   `json:"messaging_product"`
	Address           string   `json:"address"`
	Description       string   `json:"description"`
	Vertical          string   `json:"vertical"`
	Email             string   `json:"email"`
	Websites          []string `json:"websites"`
	ProfilePictureURL string   `json:"profile_picture_url"`
	About             string   `json:"about"`
}

func presentBusinessProfile(p *provider.BusinessProfile) businessProfileJSON {
	websites := p.Websites
	if websites == nil {
		websites = []string{}
	}
	return businessProfileJSON{
		MessagingProduct: p.MessagingProduct, Address: p.Address, Description: p.Description,
		Vertical: p.Vertical, Email: p.Email, Websites: websites,
		ProfilePictureURL: p.ProfilePictureURL, About: p.About,
	}
}

// createAccountBody is the JSON of createAccount. Names and ids are
// trimmed; the bounds are accounts' (TestBodyTagsMatchTheDomain).
type createAccountBody struct {
	Name                   *string `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"200" example:"Support line" description:"Unique in the organization."`
	AppID                  *string `json:"app_id" maxLength:"64" pattern:"^([1-9][0-9]*)?$" description:"The platform's numeric app id, or empty."`
	PhoneID                *string `json:"phone_id" required:"true" nullable:"false" minLength:"1" maxLength:"64" pattern:"^[1-9][0-9]*$" example:"106540352242922" description:"The platform's numeric phone number id (digits, no leading zero)."`
	BusinessID             *string `json:"business_id" required:"true" nullable:"false" minLength:"1" maxLength:"64" pattern:"^[1-9][0-9]*$" example:"102290129340398" description:"The platform's numeric business account id (digits, no leading zero)."`
	AccessToken            *string `json:"access_token" required:"true" nullable:"false" minLength:"1" example:"EAAGm0PX4ZCpsBA" description:"At most 4096 bytes; write-only."`
	AppSecret              *string `json:"app_secret" description:"At most 256 bytes; write-only. Empty: none."`
	WebhookVerifyToken     *string `json:"webhook_verify_token" maxLength:"256" description:"Empty or absent: one is generated."`
	APIVersion             *string `json:"api_version" pattern:"^v[0-9]+\\.[0-9]+$" example:"v21.0" description:"A Graph API version such as v21.0 (default v21.0)."`
	IsDefaultIncoming      *bool   `json:"is_default_incoming"`
	IsDefaultOutgoing      *bool   `json:"is_default_outgoing"`
	AutoReadReceipt        *bool   `json:"auto_read_receipt"`
	BusinessCallingEnabled *bool   `json:"business_calling_enabled"`
}

// updateAccountBody is the JSON of updateAccount: absent or null fields
// keep their value; a blank access_token or app_secret keeps it too.
type updateAccountBody struct {
	Name                   *string `json:"name" minLength:"1" maxLength:"200"`
	AppID                  *string `json:"app_id" maxLength:"64" pattern:"^([1-9][0-9]*)?$" description:"The platform's numeric app id, or empty."`
	PhoneID                *string `json:"phone_id" minLength:"1" maxLength:"64" pattern:"^[1-9][0-9]*$" description:"The platform's numeric phone number id."`
	BusinessID             *string `json:"business_id" minLength:"1" maxLength:"64" pattern:"^[1-9][0-9]*$" description:"The platform's numeric business account id."`
	AccessToken            *string `json:"access_token" description:"At most 4096 bytes; write-only. Blank: kept."`
	AppSecret              *string `json:"app_secret" description:"At most 256 bytes; write-only. Blank: kept."`
	WebhookVerifyToken     *string `json:"webhook_verify_token" minLength:"1" maxLength:"256"`
	APIVersion             *string `json:"api_version" pattern:"^v[0-9]+\\.[0-9]+$" example:"v21.0" description:"A Graph API version such as v21.0."`
	IsDefaultIncoming      *bool   `json:"is_default_incoming" description:"true makes this the default incoming account; the default cannot be unset (make another the default)."`
	IsDefaultOutgoing      *bool   `json:"is_default_outgoing" description:"true makes this the default outgoing account; the default cannot be unset (make another the default)."`
	AutoReadReceipt        *bool   `json:"auto_read_receipt"`
	BusinessCallingEnabled *bool   `json:"business_calling_enabled"`
}

func (a *API) listAccounts(c *gin.Context) (int, any, error) {
	vs, err := a.R.Accounts.List(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	out := make([]accountJSON, len(vs))
	for i, v := range vs {
		out[i] = presentAccount(v)
	}
	return http.StatusOK, accountsData{Accounts: out}, nil
}

func (a *API) getAccount(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	v, err := a.R.Accounts.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentAccount(v), nil
}

func (a *API) createAccount(c *gin.Context) (int, any, error) {
	var b createAccountBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	for _, req := range []struct {
		name string
		val  *string
	}{{"name", b.Name}, {"phone_id", b.PhoneID}, {"business_id", b.BusinessID}, {"access_token", b.AccessToken}} {
		if req.val == nil {
			return 0, nil, apperr.Invalidf("%s is required", req.name)
		}
	}
	v, err := a.R.Accounts.Create(ctx(c), accounts.CreateInput{
		Name: *b.Name, PhoneID: *b.PhoneID, BusinessID: *b.BusinessID, AccessToken: *b.AccessToken,
		AppID: b.AppID, AppSecret: b.AppSecret, WebhookVerifyToken: b.WebhookVerifyToken, APIVersion: b.APIVersion,
		IsDefaultIncoming: b.IsDefaultIncoming, IsDefaultOutgoing: b.IsDefaultOutgoing,
		AutoReadReceipt: b.AutoReadReceipt, BusinessCallingEnabled: b.BusinessCallingEnabled,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, presentAccount(v), nil
}

func (a *API) updateAccount(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateAccountBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	v, err := a.R.Accounts.Update(ctx(c), id, accounts.UpdateInput{
		Name: b.Name, PhoneID: b.PhoneID, BusinessID: b.BusinessID, AccessToken: b.AccessToken,
		AppID: b.AppID, AppSecret: b.AppSecret, WebhookVerifyToken: b.WebhookVerifyToken, APIVersion: b.APIVersion,
		IsDefaultIncoming: b.IsDefaultIncoming, IsDefaultOutgoing: b.IsDefaultOutgoing,
		AutoReadReceipt: b.AutoReadReceipt, BusinessCallingEnabled: b.BusinessCallingEnabled,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentAccount(v), nil
}

func (a *API) deleteAccount(c *gin.Context) (int, any, error) {
	return idAction(a.R.Accounts.Delete, messageData{Message: "Account deleted"})(c)
}

func (a *API) testAccount(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p, err := a.R.Accounts.Test(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentPhoneNumber(p), nil
}

func (a *API) subscribeAccount(c *gin.Context) (int, any, error) {
	return idAction(a.R.Accounts.Subscribe, subscribedData{Success: true, Message: "Subscribed to webhooks"})(c)
}

func (a *API) getBusinessProfile(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	p, err := a.R.Accounts.BusinessProfile(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentBusinessProfile(p), nil
}

// updateBusinessProfileBody is the JSON body of updateBusinessProfile.
// Absent or null fields keep their value; the bounds are the platform's.
type updateBusinessProfileBody struct {
	MessagingProduct *string  `json:"messaging_product" required:"true" nullable:"false" enum:"whatsapp"`
	Address          *string  `json:"address" maxLength:"256"`
	Description      *string  `json:"description" maxLength:"512"`
	Vertical         *string  `json:"vertical" enum:"[\"\",\"UNDEFINED\",\"OTHER\",\"AUTO\",\"BEAUTY\",\"APPAREL\",\"EDU\",\"ENTERTAIN\",\"EVENT_PLAN\",\"FINANCE\",\"GROCERY\",\"GOVT\",\"HOTEL\",\"HEALTH\",\"NONPROFIT\",\"PROF_SERVICES\",\"RETAIL\",\"TRAVEL\",\"RESTAURANT\",\"NOT_A_BIZ\"]" description:"The industry; empty: unchanged."`
	Email            *string  `json:"email" description:"An email address of at most 128 characters, or empty."`
	Websites         []string `json:"websites" maxItems:"2" description:"http:// or https:// URLs of at most 256 characters; an empty list leaves the websites as they are."`
	About            *string  `json:"about" minLength:"1" maxLength:"139" description:"Not blank."`
}

func (a *API) updateBusinessProfile(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateBusinessProfileBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	p, err := a.R.Accounts.UpdateBusinessProfile(ctx(c), id, accounts.BusinessProfileInput{
		MessagingProduct: b.MessagingProduct, Address: b.Address, Description: b.Description,
		Vertical: b.Vertical, Email: b.Email, Websites: b.Websites, About: b.About,
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentBusinessProfile(p), nil
}

func (a *API) uploadProfilePhoto(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	name, data, err := readUpload(c, "file", accounts.MaxProfilePhotoBytes)
	if err != nil {
		return 0, nil, err
	}
	handle, err := a.R.Accounts.UploadProfilePhoto(ctx(c), id, name, data)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, profilePhotoData{Message: "Profile photo updated", Handle: handle}, nil
}

// maxMultipartOverhead bounds what a multipart body may carry besides the
// file: boundaries, part headers and small form fields.
const maxMultipartOverhead = 1 << 20

// readUpload reads the file part named field of a multipart/form-data
// body, refusing files over maxBytes and bodies over maxBytes plus
// maxMultipartOverhead. It returns the part's file name and content.
func readUpload(c *gin.Context, field string, maxBytes int) (string, []byte, error) {
	name, data, _, err := readUploadFields(c, field, maxBytes)
	return name, data, err
}

// maxUploadField bounds a text field read beside an upload's file.
const maxUploadField = 1024

// readUploadFields is readUpload that also returns the body's small text
// fields (before or after the file, at most maxUploadField bytes each).
func readUploadFields(c *gin.Context, field string, maxBytes int) (string, []byte, map[string]string, error) {
	tooLarge := apperr.Invalidf("%s is too large (max %d MB)", field, maxBytes>>20)
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, int64(maxBytes+maxMultipartOverhead))
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return "", nil, nil, apperr.Invalidf("request must be multipart/form-data with a %s part", field)
	}
	fields := map[string]string{}
	var name string
	var data []byte
	found := false
	for {
		part, err := mr.NextPart()
		var mbe *http.MaxBytesError
		switch {
		case errors.Is(err, io.EOF):
			if !found {
				return "", nil, nil, apperr.Invalidf("%s is required", field)
			}
			return name, data, fields, nil
		case errors.As(err, &mbe):
			return "", nil, nil, tooLarge
		case err != nil:
			return "", nil, nil, apperr.Invalidf("malformed multipart body")
		}
		if part.FormName() != field || found {
			if part.FileName() == "" && len(fields) < 16 {
				v, err := io.ReadAll(io.LimitReader(part, maxUploadField+1))
				if err != nil || len(v) > maxUploadField {
					return "", nil, nil, apperr.Invalidf("form field %s is too long or malformed", part.FormName())
				}
				fields[part.FormName()] = string(v)
			}
			continue
		}
		data, err = io.ReadAll(io.LimitReader(part, int64(maxBytes)+1))
		switch {
		case errors.As(err, &mbe):
			return "", nil, nil, tooLarge
		case err != nil:
			return "", nil, nil, apperr.Invalidf("malformed multipart body")
		case len(data) > maxBytes:
			return "", nil, nil, tooLarge
		}
		name, found = part.FileName(), true
	}
}

// accountRoutes: the calls that reach the platform (test, subscribe,
// business profile changes, photo upload) run without the request
// transaction, so no database transaction stays open across a network
// call; each of them writes at most one row.
func (a *API) accountRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/accounts", Op: "accounts", Out: accountsData{}, Handle: a.listAccounts},
		{Method: post, Path: "/api/accounts", Op: "createAccount", Status: http.StatusCreated, In: createAccountBody{}, Out: accountJSON{}, Handle: a.createAccount},
		{Method: get, Path: "/api/accounts/:id", Op: "account", Out: accountJSON{}, Handle: a.getAccount},
		{Method: put, Path: "/api/accounts/:id", Op: "updateAccount", In: updateAccountBody{}, Out: accountJSON{}, Handle: a.updateAccount},
		{Method: del, Path: "/api/accounts/:id", Op: "deleteAccount", Out: messageData{}, Handle: a.deleteAccount},
		{Method: post, Path: "/api/accounts/:id/test", Op: "testAccount", Out: phoneNumberJSON{}, Handle: a.testAccount},
		{Method: post, Path: "/api/accounts/:id/subscribe", Op: "subscribeAccount", Out: subscribedData{}, Handle: a.subscribeAccount},
		{Method: get, Path: "/api/accounts/:id/business_profile", Op: "accountBusinessProfile", Out: businessProfileJSON{}, Handle: a.getBusinessProfile},
		{Method: put, Path: "/api/accounts/:id/business_profile", Op: "updateAccountBusinessProfile", In: updateBusinessProfileBody{}, Out: businessProfileJSON{}, Handle: a.updateBusinessProfile},
		{Method: post, Path: "/api/accounts/:id/business_profile/photo", Op: "uploadAccountProfilePhoto", In: fileForm{}, Out: profilePhotoData{}, Handle: a.uploadProfilePhoto},
	}
}
