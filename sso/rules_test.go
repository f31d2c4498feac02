package sso

import "testing"

func TestDomainAllowed(t *testing.T) {
	for _, c := range []struct {
		email, allowed string
		want           bool
	}{
		{"a@example.com", "", true},
		{"a@Example.COM", "example.com,example.org", true},
		{"a@example.org", "example.com,example.org", true},
		{"a@sub.example.com", "example.com", false},
		{"a@example.com.evil.net", "example.com", false},
		{"a@evil.net@example.com", "example.com", true}, // the last @ names the domain
		{"no-at-sign", "example.com", false},
	} {
		if got := domainAllowed(c.email, c.allowed); got != c.want {
			t.Errorf("domainAllowed(%q, %q) = %v", c.email, c.allowed, got)
		}
	}
}

func TestTruthy(t *testing.T) {
	for v, want := range map[any]bool{true: true, false: false, "true": true, "TRUE": true, "yes": false, 1: false, nil: false} {
		if truthy(v) != want {
			t.Errorf("truthy(%v) != %v", v, want)
		}
	}
}
