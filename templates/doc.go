// Package templates owns message templates: drafts with the platform's
// validation rules, their submission to the platform (create, edit,
// delete), the sync of an account's templates, the resumable upload of
// header samples, and status, quality and category updates arriving on the
// platform's webhook (each recorded as a template:status event). REST and
// GraphQL call it; it knows neither. It never sends messages: messaging
// does, with Variables telling what a send must fill.
package templates

// Button types of a template, as the platform names them.
const (
	ButtonQuickReply  = "QUICK_REPLY"
	ButtonURL         = "URL"
	ButtonPhoneNumber = "PHONE_NUMBER"
	ButtonCopyCode    = "COPY_CODE"
	ButtonOTP         = "OTP"
)
