package access

import "net/mail"

// validEmail accepts a bare address (no display name, no comments).
func validEmail(e string) bool {
	a, err := mail.ParseAddress(e)
	return err == nil && a.Address == e
}

// ValidEmail reports whether e is an acceptable email address.
func ValidEmail(e string) bool { return validEmail(NormalizeEmail(e)) }
