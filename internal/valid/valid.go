// Package valid is the one vocabulary of input checks that every
// operation shares: a text field is trimmed (or not), required (or not),
// at most so many characters, valid UTF-8 and free of NUL characters
// (PostgreSQL cannot store them). Each check answers an apperr Invalid
// error naming the field, with the same words everywhere.
package valid

import (
	"strings"
	"unicode/utf8"

	"switchboard/apperr"
)

// Text trims s and checks it as Check does; an empty result is allowed.
func Text(field, s string, maxLen int) (string, error) {
	s = strings.TrimSpace(s)
	return s, Check(field, s, maxLen)
}

// RequiredText trims s and checks that something is left, then as Check
// does.
func RequiredText(field, s string, maxLen int) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Required(field)
	}
	return s, Check(field, s, maxLen)
}

// Check checks s as it is (no trimming): at most maxLen characters (0: no
// bound), valid UTF-8, no NUL character.
func Check(field, s string, maxLen int) error {
	if err := NoNUL(field, s); err != nil {
		return err
	}
	if maxLen > 0 && utf8.RuneCountInString(s) > maxLen {
		return TooLong(field, maxLen)
	}
	return nil
}

// NoNUL checks that s is valid UTF-8 without NUL characters.
func NoNUL(field, s string) error {
	if strings.ContainsRune(s, 0) {
		return NUL(field)
	}
	if !utf8.ValidString(s) {
		return apperr.Invalidf("%s must be valid UTF-8", field)
	}
	return nil
}

// Required is the error of a missing field.
func Required(field string) *apperr.Error { return apperr.Invalidf("%s is required", field) }

// TooLong is the error of a field over its length.
func TooLong(field string, maxLen int) *apperr.Error {
	return apperr.Invalidf("%s must be at most %d characters", field, maxLen)
}

// NUL is the error of a field holding a NUL character, for checks that
// look at the raw request rather than a decoded string (a JSON body's
// \u0000 escape, a query string's %00).
func NUL(field string) *apperr.Error {
	return apperr.Invalidf("%s must not contain NUL characters", field)
}
