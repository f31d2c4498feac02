package main

import (
	"context"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/lib/pq"

	"switchboard/bench/internal/benchkit"
	"switchboard/internal/calltest"
)

const (
	adminEmail    = "bench@example.com"
	adminPassword = "bench-password-not-secret"
	appSecret     = "bench-app-secret"
)

// env is the server under test, its fresh database and the platform fake.
type env struct {
	srv    *calltest.Server
	plat   *calltest.Platform
	cc     *calltest.CallCenter
	dropDB func()
	// pprofAddr serves the server's /debug/pprof/ (empty: not served).
	pprofAddr string
}

// profiler returns a function starting a CPU profile of the server
// (PROFILE_SECONDS, default 5; an execution trace when path ends in
// .trace) written to path in the background; nil when path is empty.
func (e *env) profiler(path string) func() {
	if path == "" || e.pprofAddr == "" {
		return nil
	}
	secs := os.Getenv("PROFILE_SECONDS")
	if secs == "" {
		secs = "5"
	}
	return func() {
		go func() {
			kind := "profile"
			if strings.HasSuffix(path, ".trace") {
				kind = "trace" // an execution trace: go tool trace -pprof=sync|net|sched
			}
			resp, err := http.Get("http://" + e.pprofAddr + "/debug/pprof/" + kind + "?seconds=" + secs)
			if err != nil {
				log.Printf("profile: %v", err)
				return
			}
			defer resp.Body.Close()
			f, err := os.Create(path)
			if err != nil {
				log.Printf("profile: %v", err)
				return
			}
			defer f.Close()
			if _, err := io.Copy(f, resp.Body); err != nil {
				log.Printf("profile: %v", err)
			}
		}()
	}
}

// startEnv builds (or takes) the binary, creates the database, starts the
// platform fake and the server (calling media on 127.0.0.1 only), and sets
// up the organization: calling on, one agent, no IVR flow (calls wait
// for an agent at once).
func startEnv(ctx context.Context, f flags) (_ *env, err error) {
	e := &env{}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	bin := f.bin
	if bin == "" {
		log.Printf("building the server")
		if bin, err = calltest.Build(ctx, f.dir); err != nil {
			return nil, err
		}
	}
	dbURL, drop, err := benchkit.FreshDatabase(ctx, f.pg, "switchboard_calls_bench_", false)
	if err != nil {
		return nil, err
	}
	e.dropDB = drop
	if e.plat, err = calltest.StartPlatform(appSecret); err != nil {
		return nil, err
	}
	addr, err := calltest.FreeAddr()
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Join(f.dir, "data")
	if err := os.RemoveAll(dataDir); err != nil {
		return nil, err
	}
	logPath := filepath.Join(f.dir, "server.log")
	_ = os.Remove(logPath)
	vars := map[string]string{
		"LISTEN_ADDR": addr, "PUBLIC_URL": "http://" + addr, "DATA_DIR": dataDir,
		"DATABASE_URL": dbURL, "REDIS_URL": f.redis, "PROVIDER_BASE_URL": e.plat.URL,
		"RTC_LISTEN_ADDRS": "127.0.0.1", "STUN_URLS": "", // set empty: no STUN server on loopback
		"ADMIN_EMAIL": adminEmail, "ADMIN_PASSWORD": adminPassword, "COOKIE_SECURE": "false",
		"JWT_SECRET": "bench-jwt-secret", "ENCRYPTION_KEY": "bench-encryption-key",
		"LOG_LEVEL": "warn", "LOG_FORMAT": "text", "RATE_LIMIT_PER_MINUTE": "1000000",
	}
	if f.profile != "" {
		if e.pprofAddr, err = calltest.FreeAddr(); err != nil {
			return nil, err
		}
		vars["PPROF_ADDR"] = e.pprofAddr
	}
	e.srv, err = calltest.Start(ctx, bin, vars, logPath)
	if err != nil {
		return nil, err
	}
	e.plat.Webhook = e.srv.URL + "/api/webhook"
	if e.cc, err = calltest.SetUp(ctx, e.srv.URL, adminEmail, adminPassword, appSecret); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *env) close() {
	if e.srv != nil {
		if err := e.srv.Stop(); err != nil {
			log.Print(err)
		}
	}
	if e.plat != nil {
		e.plat.Close()
	}
	if e.dropDB != nil {
		e.dropDB()
	}
}
