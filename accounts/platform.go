package accounts

import (
	"context"
	"net/http"
	"regexp"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/provider"
)

// Bounds of the business profile, as the platform documents them.
const (
	maxProfileAbout       = 139
	maxProfileAddress     = 256
	maxProfileDescription = 512
	maxProfileEmail       = 128
	maxProfileWebsite     = 256
	// MaxProfilePhotoBytes is the largest business profile photo accepted.
	MaxProfilePhotoBytes = 5 << 20
)

// profileProduct is the only messaging_product of a business profile.
const profileProduct = "whatsapp"

// apiVersionPattern is a Graph API version such as v21.0.
var apiVersionPattern = regexp.MustCompile(`^v\d+\.\d+$`)

// graphIDPattern is a platform object id (phone number, business account,
// app): a decimal number, written without a leading zero, so that one id
// has one spelling (the uniqueness of phone_id across organizations holds
// for the number, not for "0" + it).
var graphIDPattern = regexp.MustCompile(`^[1-9][0-9]*$`)

// profileVerticals are the industry codes the platform accepts.
var profileVerticals = map[string]bool{
	"UNDEFINED": true, "OTHER": true, "AUTO": true, "BEAUTY": true, "APPAREL": true, "EDU": true,
	"ENTERTAIN": true, "EVENT_PLAN": true, "FINANCE": true, "GROCERY": true, "GOVT": true, "HOTEL": true,
	"HEALTH": true, "NONPROFIT": true, "PROF_SERVICES": true, "RETAIL": true, "TRAVEL": true,
	"RESTAURANT": true, "NOT_A_BIZ": true,
}

// BusinessProfileInput changes the non-nil fields of a business profile.
// MessagingProduct must be "whatsapp". Websites replaces the list when not
// nil; an empty list leaves it as it is (the platform has no way to clear
// it through this call).
type BusinessProfileInput struct {
	MessagingProduct *string
	Address          *string
	Description      *string
	Vertical         *string
	Email            *string
	Websites         []string
	About            *string
}

// Test verifies an account's credentials by reading its phone
// number's status from the platform, and stores the messaging limit tier
// it reports. Errors: not_found, invalid (the platform refused the
// credentials or the phone number id, with its message), unavailable (the
// platform could not be reached or failed).
func (s *Service) Test(ctx context.Context, id uuid.UUID) (*provider.PhoneNumber, error) {
	a, acc, err := s.providerAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := s.Provider.PhoneNumberInfo(ctx, acc)
	if err != nil {
		return nil, provider.AppError(err)
	}
	if p.MessagingLimitTier != a.MessagingLimitTier {
		if err := s.db(ctx).Account.UpdateOneID(a.ID).SetMessagingLimitTier(p.MessagingLimitTier).Exec(ctx); err != nil {
			return nil, apperr.Wrap(err, "account")
		}
	}
	return p, nil
}

// Subscribe subscribes the app owning the account's token to the
// webhooks of its business account. Errors: not_found, invalid,
// unavailable (as for Test).
func (s *Service) Subscribe(ctx context.Context, id uuid.UUID) error {
	_, acc, err := s.providerAccount(ctx, id)
	if err != nil {
		return err
	}
	return provider.AppError(s.Provider.SubscribeApp(ctx, acc))
}

// BusinessProfile reads the account's business profile from the
// platform. Errors: not_found, invalid, unavailable (as for Test).
func (s *Service) BusinessProfile(ctx context.Context, id uuid.UUID) (*provider.BusinessProfile, error) {
	_, acc, err := s.providerAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := s.Provider.GetBusinessProfile(ctx, acc)
	return p, provider.AppError(err)
}

// UpdateBusinessProfile changes the given fields of the account's
// business profile and returns the profile as the platform then shows it.
// Errors: not_found; invalid (messaging_product other than "whatsapp",
// more than 2 websites or one that is not an http(s) URL of at most 256
// characters, an invalid email, an unknown vertical, an empty about or one
// over 139 characters, a description over 512 or an address over 256
// characters, or the platform refused the change); unavailable.
func (s *Service) UpdateBusinessProfile(ctx context.Context, id uuid.UUID, in BusinessProfileInput) (*provider.BusinessProfile, error) {
	upd, err := profileUpdate(in)
	if err != nil {
		return nil, err
	}
	_, acc, err := s.providerAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.Provider.UpdateBusinessProfile(ctx, acc, upd); err != nil {
		return nil, provider.AppError(err)
	}
	p, err := s.Provider.GetBusinessProfile(ctx, acc)
	return p, provider.AppError(err)
}

// UploadProfilePhoto sets the business profile photo: a JPEG or
// PNG (recognized by its content, not its name) of at most 5 MB, uploaded
// with the platform's Resumable Upload API under the account's app. It
// returns the platform's file handle. Errors: not_found; invalid (empty,
// too large or not JPEG/PNG; the account has no app_id; the platform
// refused the upload); unavailable.
func (s *Service) UploadProfilePhoto(ctx context.Context, id uuid.UUID, filename string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", apperr.Invalidf("file is empty")
	}
	if len(data) > MaxProfilePhotoBytes {
		return "", apperr.Invalidf("file is too large (max %d MB)", MaxProfilePhotoBytes>>20)
	}
	mimeType := http.DetectContentType(data)
	if mimeType != "image/jpeg" && mimeType != "image/png" {
		return "", apperr.Invalidf("file must be a JPEG or PNG image (got %s)", mimeType)
	}
	a, acc, err := s.providerAccount(ctx, id)
	if err != nil {
		return "", err
	}
	if a.AppID == "" {
		return "", apperr.Invalidf("the account has no app_id: set it before uploading a profile photo")
	}
	handle, err := s.Provider.UploadProfilePhoto(ctx, acc, a.AppID, filename, mimeType, data)
	if err != nil {
		return "", provider.AppError(err)
	}
	if err := s.Provider.UpdateBusinessProfile(ctx, acc, provider.BusinessProfileUpdate{ProfilePictureHandle: handle}); err != nil {
		return "", provider.AppError(err)
	}
	return handle, nil
}

// providerAccount loads an account and its credentials for a platform
// call. Errors: not_found, invalid (no access token), internal (the token
// cannot be decrypted).
func (s *Service) providerAccount(ctx context.Context, id uuid.UUID) (*ent.Account, provider.Account, error) {
	a, err := s.db(ctx).Account.Get(ctx, id)
	if err != nil {
		return nil, provider.Account{}, apperr.Wrap(err, "account")
	}
	if !HasAccessToken(a) {
		return nil, provider.Account{}, apperr.Invalidf("the account has no access token")
	}
	if s.Secrets == nil || s.Provider == nil {
		return nil, provider.Account{}, apperr.New(apperr.Internal, "the platform client is not configured")
	}
	creds, err := Credentials(s.Secrets, a)
	return a, creds, err
}
