// Package config owns the server's configuration: the table of options in
// options.go (the single source for parsing, validation, redacted logging and
// the README's Markdown table), loading them from the environment, a .env file
// and NAME_FILE secret files, generating the secrets that have no value, and
// building the process logger.
//
// It reads nothing but the environment, the .env file, secret files and
// $DATA_DIR; it must not import other packages of the application.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/joho/godotenv"
)

// Run modes: which parts of the application a process runs.
const (
	RunModeAll    = "all"    // HTTP server and background worker
	RunModeHTTP   = "http"   // HTTP server only; tasks are enqueued for other processes
	RunModeWorker = "worker" // background worker only
)

// Log formats.
const (
	LogFormatAuto = "auto" // JSON unless the log goes to a terminal
	LogFormatJSON = "json"
	LogFormatText = "text"
)

// Config is the parsed configuration. Load returns it validated; the fields
// mirror the options table in options.go.
type Config struct {
	ListenAddr      string
	DatabaseURL     string // empty: embedded SQLite at SQLitePath()
	RedisURL        string // empty: in-process Redis-compatible server
	DataDir         string
	PublicURL       string // no trailing slash
	JWTSecret       string // empty until EnsureSecrets when not configured
	EncryptionKey   string // empty until EnsureSecrets when not configured
	ProviderBaseURL string // no trailing slash

	AdminEmail    string
	AdminPassword string // empty: bootstrap generates one and logs it once
	AdminOrgName  string

	CookieSecure         bool
	OutboundAllowPrivate bool
	WebhookRetention     time.Duration // 0: finished deliveries kept forever

	AIOpenAIBaseURL    string // no trailing slash
	AIAnthropicBaseURL string // no trailing slash
	AIGoogleBaseURL    string // no trailing slash

	LogLevel  slog.Level
	LogFormat string // one of the LogFormat constants
	RunMode   string // one of the RunMode constants

	WorkerConcurrency      int
	RateLimitPerMinute     int // per authenticated principal
	RateLimitAnonPerMinute int // per client IP, unauthenticated requests
	AccessTokenTTL         time.Duration
	RefreshTokenTTL        time.Duration

	// TrustedProxies are CIDRs or addresses whose forwarding headers are
	// believed.
	TrustedProxies        []string
	HTTPReadHeaderTimeout time.Duration
	HTTPReadTimeout       time.Duration
	HTTPUploadTimeout     time.Duration // multipart uploads and media downloads
	HTTPWriteTimeout      time.Duration
	HTTPIdleTimeout       time.Duration
	WSMaxPerUser          int    // open WebSockets per principal, all nodes
	WSMaxPerAddress       int    // open WebSockets per client address, all nodes
	HTTPConnsPerAddress   int    // open plain HTTP connections per client address (IPv6: /64), this process
	MetricsAddr           string // empty: /metrics on ListenAddr
	MetricsToken          string // empty: /metrics needs no token
	PprofAddr             string // empty: no profiling endpoints
	// Calling media and the ICE servers handed to browsers.
	RTCListenAddrs []string // empty: every non-loopback address (of RTCInterfaces)
	RTCInterfaces  []string // empty: every interface
	RTCPublicIP    string   // empty: the gathered addresses are announced
	RTCUDPPortMin  int      // 0 with RTCUDPPortMax 0: any port
	RTCUDPPortMax  int
	RTCUDPPort     int // 0: a port per leg
	STUNURLs       []string
	TURNURLs       []string
	TURNSecret     string // empty: TURN URLs without credentials
	TURNTTL        time.Duration
	// GCPercent is the garbage collector's target (debug.SetGCPercent;
	// -1: off), applied by the server command at start.
	GCPercent int
}

// FromEnv loads the configuration from the process environment and from a
// .env file in the working directory, if there is one. Variables set in the
// real environment win over the .env file, which is never written to the
// process environment.
func FromEnv() (*Config, error) {
	dotenv, err := godotenv.Read(".env")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("config: read .env: %w", err)
	}
	return Load(func(name string) (string, bool) {
		if v, ok := os.LookupEnv(name); ok {
			return v, true
		}
		v, ok := dotenv[name]
		return v, ok
	})
}

// Load builds the configuration from lookup (os.LookupEnv or a test's map),
// applying defaults, reading NAME_FILE for secret options, and validating the
// result. An empty value counts as unset, except for an option whose
// EmptyIsValue is set. All problems are reported at once.
func Load(lookup func(string) (string, bool)) (*Config, error) {
	c := new(Config)
	var errs []error
	for _, o := range options {
		raw, err := o.raw(lookup)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if raw == "" && !(o.EmptyIsValue && isSet(lookup, o.Name)) {
			raw = o.Default
		}
		if err := o.bind.set(c, raw); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o.Name, err))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("config: %w", errors.Join(errs...))
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// isSet reports whether the variable name is set at all (empty or not).
func isSet(lookup func(string) (string, bool), name string) bool {
	_, ok := lookup(name)
	return ok
}

// raw returns the option's value from the environment, or from the file named
// by NAME_FILE for secret options.
func (o Option) raw(lookup func(string) (string, bool)) (string, error) {
	v, _ := lookup(o.Name)
	v = strings.TrimSpace(v)
	if !o.Secret {
		return v, nil
	}
	path, _ := lookup(o.Name + "_FILE")
	if path = strings.TrimSpace(path); path == "" {
		return v, nil
	}
	if v != "" {
		return "", fmt.Errorf("%s and %s_FILE are both set; use one", o.Name, o.Name)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", o.Name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// RunsHTTP reports whether this process serves HTTP.
func (c *Config) RunsHTTP() bool { return c.RunMode == RunModeAll || c.RunMode == RunModeHTTP }

// RunsWorker reports whether this process runs the background worker.
func (c *Config) RunsWorker() bool { return c.RunMode == RunModeAll || c.RunMode == RunModeWorker }

// SQLitePath is the embedded database file used when DatabaseURL is empty.
func (c *Config) SQLitePath() string { return filepath.Join(c.DataDir, "app.db") }

// Setting is one option's effective value.
type Setting struct {
	Name, Value string
}

// Effective lists every option's effective value, in documentation order,
// with secret values replaced by "[set]" (or left empty when unset), so the
// list can be logged or printed.
func (c *Config) Effective() []Setting {
	out := make([]Setting, 0, len(options))
	for _, o := range options {
		v := o.bind.get(c)
		if o.Secret && v != "" {
			v = "[set]"
		}
		out = append(out, Setting{Name: o.Name, Value: v})
	}
	return out
}

// LogValue lists every option for a startup log line (Effective: secrets
// never reach the log).
func (c *Config) LogValue() slog.Value {
	settings := c.Effective()
	attrs := make([]slog.Attr, len(settings))
	for i, s := range settings {
		attrs[i] = slog.String(s.Name, s.Value)
	}
	return slog.GroupValue(attrs...)
}
