package accounts

import (
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/provider"
	"switchboard/secrets"
)

// Credentials decrypts a's access token into the platform credentials of
// its phone number: the one place an account becomes a provider.Account.
// Errors: invalid (the account has no access token), internal (the token
// cannot be decrypted).
func Credentials(box *secrets.Box, a *ent.Account) (provider.Account, error) {
	if !HasAccessToken(a) {
		return provider.Account{}, apperr.Invalidf("account %q has no access token", a.Name)
	}
	token, err := box.Open(a.AccessTokenEncrypted)
	if err != nil {
		return provider.Account{}, &apperr.Error{Code: apperr.Internal, Message: "internal error", Err: err}
	}
	return provider.Account{PhoneID: a.PhoneID, BusinessID: a.BusinessID, AccessToken: string(token), APIVersion: a.APIVersion}, nil
}
