package netguard

import (
	"io"
	"net/http"
)

// LimitBody caps resp.Body at limit bytes: reads return at most limit bytes,
// and the read that would go past them fails with a *ResponseTooLargeError
// (errors.Is ErrResponseTooLarge). A body that announces a longer
// Content-Length fails on its first read, before anything is transferred.
// The status and headers stay usable either way. A limit of zero or less
// allows no bytes at all. LimitBody does nothing when resp or its body is
// nil.
func LimitBody(resp *http.Response, limit int64) {
	if resp == nil || resp.Body == nil {
		return
	}
	limit = max(limit, 0)
	b := &limitedBody{rc: resp.Body, remaining: limit, limit: limit}
	if resp.ContentLength > limit {
		b.err = &ResponseTooLargeError{Limit: limit}
	}
	resp.Body = b
}

type limitedBody struct {
	rc        io.ReadCloser
	remaining int64
	limit     int64
	err       error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// Read one byte more than allowed, to tell "exactly at the cap" from
	// "over it".
	if b.remaining < int64(len(p))-1 {
		p = p[:b.remaining+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) <= b.remaining {
		b.remaining -= int64(n)
		return n, err
	}
	n = int(b.remaining)
	b.remaining = 0
	b.err = &ResponseTooLargeError{Limit: b.limit}
	return n, b.err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// limitTransport applies LimitBody to every response.
type limitTransport struct {
	base  *http.Transport
	limit int64
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	LimitBody(resp, t.limit)
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the pool.
func (t *limitTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }
