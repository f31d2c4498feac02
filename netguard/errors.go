package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// Sentinel errors. Every error the package returns matches one of them with
// errors.Is. Its message names the destination and why it was refused,
// which may include the addresses a host name resolved to: log it, and
// show the user PublicMessage.
var (
	// ErrBlockedAddress: the destination is loopback, private, link-local,
	// a metadata service or otherwise not a public address.
	ErrBlockedAddress = errors.New("destination address is not allowed")
	// ErrInvalidURL: the URL is not an absolute http(s) URL we accept.
	ErrInvalidURL = errors.New("invalid URL")
	// ErrResponseTooLarge: the response body is longer than the cap.
	ErrResponseTooLarge = errors.New("response body is too large")
	// ErrTooManyRedirects: the redirect chain is longer than allowed.
	ErrTooManyRedirects = errors.New("too many redirects")
)

// BlockedAddressError says which destination was refused and why.
type BlockedAddressError struct {
	// Addr is the refused address; invalid when only a host name was
	// refused (such as "localhost").
	Addr netip.Addr
	// Host is the host name that led to Addr, when there was one.
	Host string
	// Reason names the kind of address, such as "loopback" or
	// "private network".
	Reason string
}

func (e *BlockedAddressError) Error() string {
	switch {
	case e.Addr.IsValid() && e.Host != "":
		return fmt.Sprintf("destination %s resolves to %s, which is not allowed (%s)", e.Host, e.Addr, e.Reason)
	case e.Addr.IsValid():
		return fmt.Sprintf("destination address %s is not allowed (%s)", e.Addr, e.Reason)
	case e.Host != "":
		return fmt.Sprintf("destination %s is not allowed (%s)", e.Host, e.Reason)
	default:
		return fmt.Sprintf("destination address is not allowed (%s)", e.Reason)
	}
}

// Is makes errors.Is(err, ErrBlockedAddress) true.
func (e *BlockedAddressError) Is(target error) bool { return target == ErrBlockedAddress }

// InvalidURLError says what is wrong with a URL.
type InvalidURLError struct {
	// Reason is a sentence fragment such as "the scheme must be http or https".
	Reason string
}

func (e *InvalidURLError) Error() string { return "invalid URL: " + e.Reason }

// Is makes errors.Is(err, ErrInvalidURL) true.
func (e *InvalidURLError) Is(target error) bool { return target == ErrInvalidURL }

// ResponseTooLargeError is returned by reads past the response size cap.
type ResponseTooLargeError struct {
	// Limit is the cap in bytes.
	Limit int64
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("response body exceeds the limit of %d bytes", e.Limit)
}

// Is makes errors.Is(err, ErrResponseTooLarge) true.
func (e *ResponseTooLargeError) Is(target error) bool { return target == ErrResponseTooLarge }

func invalidURL(format string, args ...any) error {
	return &InvalidURLError{Reason: fmt.Sprintf(format, args...)}
}

// PublicMessage says why a request made through the guard failed, in
// words safe to show to the user who configured the URL: the kind of
// failure only, never the addresses a host name resolved to, our
// resolver, or other internals (log err itself for those).
func PublicMessage(err error) string {
	var (
		dnsErr *net.DNSError
		netErr net.Error
		opErr  *net.OpError
		iu     *InvalidURLError
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrBlockedAddress):
		return "destination not allowed"
	case errors.As(err, &iu):
		return iu.Error()
	case errors.Is(err, ErrTooManyRedirects):
		return "too many redirects"
	case errors.Is(err, ErrResponseTooLarge):
		return "the response is too large"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "the destination did not answer in time"
	case errors.As(err, &dnsErr):
		return "the destination's host name could not be resolved"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the destination refused the connection"
	case isTLSError(err):
		return "TLS handshake with the destination failed"
	case errors.As(err, &opErr):
		return "could not connect to the destination"
	}
	return "the request to the destination failed"
}

// isTLSError reports a failed TLS handshake or certificate check.
func isTLSError(err error) bool {
	var (
		recordErr   tls.RecordHeaderError
		alertErr    tls.AlertError
		certErr     *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidErr  x509.CertificateInvalidError
	)
	return errors.As(err, &recordErr) || errors.As(err, &alertErr) || errors.As(err, &certErr) ||
		errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalidErr)
}
