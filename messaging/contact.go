package messaging

import (
	"strings"
	"time"

	"switchboard/apperr"
	"switchboard/ent"
)

// ServiceWindow is how long after a contact's last inbound message the
// business may send free-form (non-template) messages.
const ServiceWindow = 24 * time.Hour

// Bounds of a phone number in E.164 digits.
const (
	MinPhoneDigits = 7
	MaxPhoneDigits = 15
)

// ServiceWindowOpen reports whether the contact wrote within the last 24
// hours at now, so that free-form (non-template) messages may be sent.
func ServiceWindowOpen(c *ent.Contact, now time.Time) bool {
	return c != nil && c.LastInboundAt != nil && now.Sub(*c.LastInboundAt) < ServiceWindow
}

// NormalizePhone returns phone in E.164 digits: spaces, dashes, parentheses
// and dots are removed, then a leading + or 00. The result must be 7 to 15
// digits. Errors: invalid.
func NormalizePhone(phone string) (string, error) {
	s := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '(', ')', '.', '\t':
			return -1
		}
		return r
	}, strings.TrimSpace(phone))
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		s = rest
	} else if rest, ok := strings.CutPrefix(s, "00"); ok {
		s = rest
	}
	if s == "" {
		return "", apperr.Invalidf("phone_number is required")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return "", apperr.Invalidf("phone_number must contain only digits, spaces, dashes, parentheses, dots and a leading + or 00")
		}
	}
	if len(s) < MinPhoneDigits || len(s) > MaxPhoneDigits {
		return "", apperr.Invalidf("phone_number must have %d to %d digits", MinPhoneDigits, MaxPhoneDigits)
	}
	return s, nil
}
