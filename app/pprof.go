package app

import (
	"context"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// ServePprof serves Go's profiling endpoints (/debug/pprof/) alone on ln
// (PPROF_ADDR, a loopback address) until ctx is done. They are never on
// the API's listener.
func (a *App) ServePprof(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	// A CPU profile or trace runs for its ?seconds=, longer than the API's
	// write timeout allows.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}
