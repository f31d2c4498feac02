package netguard_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"switchboard/netguard"
)

func TestPublicMessage(t *testing.T) {
	post := func(err error) error { return &url.Error{Op: "Post", URL: "http://intranet.corp:8080/x", Err: err} }
	dial := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 8080}, Err: err}
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"BlockedAfterResolution", post(dial(&netguard.BlockedAddressError{Addr: netip.MustParseAddr("10.1.2.3"), Host: "intranet.corp", Reason: "private network"})), "destination not allowed"},
		{"BlockedLiteral", post(&netguard.BlockedAddressError{Addr: netip.MustParseAddr("169.254.169.254"), Reason: "cloud metadata service"}), "destination not allowed"},
		{"DNS", post(dial(&net.DNSError{Err: "no such host", Name: "intranet.corp", Server: "10.0.0.2:53", IsNotFound: true})), "host name could not be resolved"},
		{"Timeout", post(context.DeadlineExceeded), "did not answer in time"},
		{"Refused", post(dial(fmt.Errorf("connect: %w", syscall.ECONNREFUSED))), "refused the connection"},
		{"Certificate", post(x509.UnknownAuthorityError{}), "TLS handshake"},
		{"TooManyRedirects", post(netguard.ErrTooManyRedirects), "too many redirects"},
		{"TooLarge", &netguard.ResponseTooLargeError{Limit: 10}, "too large"},
		{"InvalidURLIsTheUsersOwn", &netguard.InvalidURLError{Reason: "the URL must include a host"}, "invalid URL: the URL must include a host"},
		{"Other", errors.New("EOF from 10.1.2.3"), "the request to the destination failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := netguard.PublicMessage(tc.err)
			if !strings.Contains(got, tc.want) {
				t.Errorf("PublicMessage = %q, want %q", got, tc.want)
			}
			for _, leak := range []string{"10.1.2.3", "10.0.0.2", "169.254", "intranet.corp"} {
				if strings.Contains(got, leak) {
					t.Errorf("PublicMessage = %q reveals %s", got, leak)
				}
			}
		})
	}
}
