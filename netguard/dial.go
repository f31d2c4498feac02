package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// Resolver looks up the addresses of a host. *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// connectFunc opens a connection to an "ip:port" address that the guard has
// already accepted.
type connectFunc func(ctx context.Context, network, address string) (net.Conn, error)

const (
	// connectTimeout caps one TCP connection attempt.
	connectTimeout = 10 * time.Second
	// minAttemptTime is the least time given to one of several addresses,
	// as net.Dialer does when it tries addresses in turn.
	minAttemptTime = 2 * time.Second
)

// guard is the transport's dialer. It resolves the host itself, refuses
// blocked addresses with a message naming the host, and connects to the
// accepted ones through a net.Dialer whose Control hook checks the socket's
// address once more just before connect(2): that hook is the final word, so
// no path (an IP literal, a redirect, a rebinding DNS answer) reaches a
// blocked address.
type guard struct {
	allowPrivate bool
	resolver     Resolver
	connect      connectFunc
}

func newGuard(opts Options) *guard {
	g := &guard{allowPrivate: opts.AllowPrivate, resolver: opts.Resolver, connect: opts.connect}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.connect == nil {
		d := &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}
		if !opts.AllowPrivate {
			d.Control = control
		}
		g.connect = d.DialContext
	}
	return g
}

// control is the net.Dialer Control hook: it runs after DNS resolution, for
// the exact address the socket is about to connect to.
func control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Fail closed on anything we cannot read.
		return &BlockedAddressError{Host: address, Reason: reasonInvalid}
	}
	return CheckIP(ap.Addr())
}

// DialContext resolves address and connects to the first allowed IP that
// answers, trying them in turn (no Happy Eyeballs race) and sharing the
// deadline among them. Blocked IPs are skipped; if all are blocked, the
// error names the first.
func (g *guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, dialError(network, err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, dialError(network, &net.AddrError{Err: "invalid port", Addr: address})
	}

	ips, err := g.resolve(ctx, network, host)
	if err != nil {
		return nil, dialError(network, err)
	}
	var allowed []netip.Addr
	var blocked error
	for _, ip := range ips {
		if !g.allowPrivate {
			if reason := blockedReason(ip); reason != "" {
				if blocked == nil {
					blocked = refusal(host, ip, reason)
				}
				continue
			}
		}
		allowed = append(allowed, ip)
	}
	if len(allowed) == 0 {
		return nil, dialError(network, blocked)
	}

	var firstErr error
	for i, ip := range allowed {
		attemptCtx, cancel := attemptContext(ctx, len(allowed)-i)
		conn, err := g.connect(attemptCtx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		cancel()
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// resolve returns the addresses of host, an IP literal or a name.
func (g *guard) resolve(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	lookup := "ip"
	switch network {
	case "tcp4":
		lookup = "ip4"
	case "tcp6":
		lookup = "ip6"
	}
	ips, err := g.resolver.LookupNetIP(ctx, lookup, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	for i := range ips {
		ips[i] = ips[i].Unmap()
	}
	return ips, nil
}

// refusal names the host in the error when the address came from DNS.
func refusal(host string, ip netip.Addr, reason string) error {
	e := &BlockedAddressError{Addr: ip, Reason: reason}
	if _, err := netip.ParseAddr(host); err != nil {
		e.Host = host
	}
	return e
}

// attemptContext shares what is left of ctx's deadline among the remaining
// addresses, so one silent address does not use up the whole request.
func attemptContext(ctx context.Context, remaining int) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok || remaining <= 1 {
		return context.WithCancel(ctx)
	}
	left := time.Until(deadline)
	share := left / time.Duration(remaining)
	if share < minAttemptTime {
		share = min(minAttemptTime, left)
	}
	return context.WithTimeout(ctx, share)
}

func dialError(network string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return err
	}
	return &net.OpError{Op: "dial", Net: network, Err: err}
}
