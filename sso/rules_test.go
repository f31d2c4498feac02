package sso

import "testing"

func TestDomainAllowed(t *testing.T) {
	for _, c := range []struct {
		email, allowed string
		want           bool
	}{
		{"a@example.com", "", true},
		{"a@evil.net@example.com", "", false}, // not an address, whatever the list
		{"a@Example.COM", "example.com,example.org", true},
		{"a@example.org", "example.com,example.org", true},
		{"a@sub.example.com", "example.com", false},
		{"a@example.com.evil.net", "example.com", false},
		// One address, parsed whole (issue 28): text after the last @
		// does not name the domain of something that is not an address.
		{"a@evil.net@example.com", "example.com", false},
		{"dom5@evil.com@b.example", "b.example", false},
		{`"x@evil.com"@b.example`, "b.example", false},
		{"Name <a@example.com>", "example.com", false},
		{"a@example.com, b@evil.net", "example.com", false},
		{"a@example.com (comment)", "example.com", false},
		{" a@example.com", "example.com", false},
		{"a@example.com\n", "example.com", false},
		{"no-at-sign", "example.com", false},
		{"", "", false},
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
