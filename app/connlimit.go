package app

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// connLimit bounds the open plain HTTP connections of each client address
// (HTTP_MAX_CONNS_PER_ADDRESS), counted by the server's ConnState hook: a
// connection counts from its accept until it closes or is upgraded to a
// WebSocket (WS_MAX_PER_ADDRESS bounds those). One over the limit is
// closed before anything is read from it, as a TCP proxy's per-source
// connection limit does: answering would mean reading its request, which
// is what a client holding connections open never finishes.
//
// The address is the TCP peer; an IPv6 address counts by its /64, which
// one host usually holds whole. Peers in TRUSTED_PROXIES are not counted:
// every client behind a proxy shares its address, and the proxy's own
// limits apply to them.
type connLimit struct {
	max     int
	trusted []netip.Prefix
	log     *slog.Logger

	mu   sync.Mutex
	open map[netip.Prefix]int
}

func newConnLimit(limit int, trustedProxies []string, log *slog.Logger) *connLimit {
	l := &connLimit{max: limit, log: log, open: map[netip.Prefix]int{}}
	for _, p := range trustedProxies {
		if prefix, ok := parsePrefix(p); ok {
			l.trusted = append(l.trusted, prefix)
		}
	}
	return l
}

// parsePrefix reads a CIDR or a single address (TRUSTED_PROXIES' forms).
func parsePrefix(s string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// track is the http.Server's ConnState hook.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		if !l.admit(c) {
			_ = c.Close()
		}
	case http.StateHijacked, http.StateClosed:
		l.release(c)
	}
}

// admit counts a new connection and reports whether it is within the
// limit. A refused one stays counted until net/http reports it closed.
func (l *connLimit) admit(c net.Conn) bool {
	key, ok := l.key(c)
	if !ok {
		return true
	}
	l.mu.Lock()
	l.open[key]++
	n := l.open[key]
	l.mu.Unlock()
	if n == l.max+1 {
		l.log.Warn("refusing connections over HTTP_MAX_CONNS_PER_ADDRESS", "address", key.String(), "limit", l.max)
	}
	return n <= l.max
}

func (l *connLimit) release(c net.Conn) {
	key, ok := l.key(c)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key] <= 1 {
		delete(l.open, key)
		return
	}
	l.open[key]--
}

// key is what c counts against: its peer's address (IPv6: its /64); ok is
// false for a peer that is not counted.
func (l *connLimit) key(c net.Conn) (netip.Prefix, bool) {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Prefix{}, false
	}
	addr := ap.Addr().Unmap().WithZone("")
	for _, p := range l.trusted {
		if p.Contains(addr) {
			return netip.Prefix{}, false
		}
	}
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	key, _ := addr.Prefix(bits)
	return key, true
}
