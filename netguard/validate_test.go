package netguard_test

import (
	"errors"
	"strings"
	"testing"

	"switchboard/netguard"
)

func TestValidateURL(t *testing.T) {
	tests := []struct {
		name         string
		url          string
		allowPrivate bool
		want         error // nil, ErrInvalidURL or ErrBlockedAddress
		msg          string
	}{
		{name: "OK", url: "https://hooks.example.com/whatsapp?x=1"},
		{name: "OKHTTP", url: "http://hooks.example.com"},
		{name: "OKPort", url: "https://hooks.example.com:8443/path"},
		{name: "OKUpperScheme", url: "HTTPS://hooks.example.com/"},
		{name: "OKPublicIP", url: "http://93.184.215.14/hook"},
		{name: "OKPublicIPv6", url: "http://[2606:4700:4700::1111]:8080/"},
		{name: "OKTrailingDotName", url: "https://example.com./"},
		{name: "OKLoopbackWhenAllowed", url: "http://127.0.0.1:8080/hook", allowPrivate: true},
		{name: "OKLocalhostWhenAllowed", url: "http://localhost:3000/", allowPrivate: true},

		{name: "ErrEmpty", url: "", want: netguard.ErrInvalidURL, msg: "invalid URL: a URL is required"},
		{name: "ErrTooLong", url: "https://example.com/" + strings.Repeat("a", netguard.MaxURLLength), want: netguard.ErrInvalidURL},
		{name: "ErrUnparsable", url: "http://[::1", want: netguard.ErrInvalidURL, msg: "invalid URL: the URL cannot be parsed"},
		{name: "ErrNoScheme", url: "hooks.example.com/path", want: netguard.ErrInvalidURL, msg: "invalid URL: the URL must start with http:// or https://"},
		{name: "ErrFTP", url: "ftp://example.com/file", want: netguard.ErrInvalidURL, msg: `invalid URL: the scheme "ftp" is not allowed; use http or https`},
		{name: "ErrFile", url: "file:///etc/passwd", want: netguard.ErrInvalidURL},
		{name: "ErrGopher", url: "gopher://127.0.0.1:6379/_INFO", want: netguard.ErrInvalidURL},
		{name: "ErrOpaque", url: "http:example.com", want: netguard.ErrInvalidURL, msg: "invalid URL: the URL must include a host"},
		{name: "ErrNoHost", url: "https:///path", want: netguard.ErrInvalidURL},
		{name: "ErrOnlyPort", url: "http://:8080/", want: netguard.ErrInvalidURL},
		{name: "ErrUserinfo", url: "https://user:pass@example.com/", want: netguard.ErrInvalidURL, msg: "invalid URL: the URL must not contain a user name or password"},
		{name: "ErrUserOnly", url: "https://user@example.com/", want: netguard.ErrInvalidURL},
		{name: "ErrPortZero", url: "https://example.com:0/", want: netguard.ErrInvalidURL, msg: `invalid URL: the port "0" is not valid`},
		{name: "ErrPortTooBig", url: "https://example.com:70000/", want: netguard.ErrInvalidURL},
		{name: "ErrDecimalIP", url: "http://2130706433/", want: netguard.ErrInvalidURL},
		{name: "ErrShortIP", url: "http://127.1/", want: netguard.ErrInvalidURL},
		{name: "ErrHexIP", url: "http://0x7f000001/", want: netguard.ErrInvalidURL},
		{name: "ErrNumericEvenWhenAllowed", url: "http://0x7f.1/", allowPrivate: true, want: netguard.ErrInvalidURL},

		{name: "ErrLoopback", url: "http://127.0.0.1:8080/", want: netguard.ErrBlockedAddress, msg: "destination address 127.0.0.1 is not allowed (loopback)"},
		{name: "ErrPrivate", url: "https://10.0.0.5/hook", want: netguard.ErrBlockedAddress, msg: "destination address 10.0.0.5 is not allowed (private network)"},
		{name: "ErrMetadata", url: "http://169.254.169.254/latest/meta-data/", want: netguard.ErrBlockedAddress, msg: "destination address 169.254.169.254 is not allowed (cloud metadata service)"},
		{name: "ErrMetadataIPv6", url: "http://[fd00:ec2::254]/", want: netguard.ErrBlockedAddress},
		{name: "ErrIPv6Loopback", url: "http://[::1]:9000/", want: netguard.ErrBlockedAddress},
		{name: "ErrMappedLoopback", url: "http://[::ffff:127.0.0.1]/", want: netguard.ErrBlockedAddress},
		{name: "ErrZoned", url: "http://[fe80::1%25eth0]/", want: netguard.ErrBlockedAddress},
		{name: "ErrUnspecified", url: "http://0.0.0.0:8080/", want: netguard.ErrBlockedAddress},
		{name: "ErrLocalhost", url: "http://localhost:8080/", want: netguard.ErrBlockedAddress, msg: "destination localhost is not allowed (loopback)"},
		{name: "ErrLocalhostSubdomain", url: "http://api.LOCALHOST./", want: netguard.ErrBlockedAddress},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := netguard.ValidateURL(tc.url, tc.allowPrivate)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("ValidateURL(%q) = %v, want nil", tc.url, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("ValidateURL(%q) = %v, want %v", tc.url, err, tc.want)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("message = %q, want %q", err.Error(), tc.msg)
			}
		})
	}
}
