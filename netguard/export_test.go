package netguard

import (
	"context"
	"net"
	"syscall"
)

// WithConnect returns opts whose client opens connections through connect
// instead of a real net.Dialer, after the guard has accepted the address: a
// fake network in which a public address can lead to an httptest server.
func WithConnect(opts Options, connect func(ctx context.Context, network, address string) (net.Conn, error)) Options {
	opts.connect = connect
	return opts
}

// Control is the net.Dialer Control hook of the guarded dialer.
var Control func(network, address string, c syscall.RawConn) error = control

// MaxConnsPerHost is how many connections a client opens to one host.
const MaxConnsPerHost = maxConnsPerHost
