package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Option describes one configuration variable. The table of options is the
// single source for parsing, redacted logging and the README (Markdown).
type Option struct {
	// Name is the environment variable.
	Name string
	// Default is the value used when the variable is unset or empty, parsed
	// like user input.
	Default string
	// DefaultDoc, when set, is how the default reads in the documentation
	// (for defaults that are computed rather than literal).
	DefaultDoc string
	// Secret options are never logged and may be read from the file named by
	// NAME_FILE instead.
	Secret bool
	// Description is one Markdown sentence or two for the README.
	Description string
	// EmptyIsValue: a variable set to an empty value is that value (for a
	// list, none), not the default; only an unset one takes the default.
	EmptyIsValue bool

	bind binding
}

// binding connects an option to its Config field.
type binding struct {
	set func(c *Config, raw string) error
	get func(c *Config) string
}

// Options returns a copy of the options table, in documentation order.
func Options() []Option {
	return append([]Option(nil), options...)
}

var options = []Option{
	{
		Name: "LISTEN_ADDR", Default: ":8080",
		Description: "HTTP listen address (REST, GraphQL, WebSocket, metrics).",
		bind:        stringVar(func(c *Config) *string { return &c.ListenAddr }),
	},
	{
		Name: "DATABASE_URL", Secret: true,
		Description: "`postgres://...` (or `postgresql://`) uses PostgreSQL; empty uses the embedded SQLite file `$DATA_DIR/app.db`.",
		bind:        stringVar(func(c *Config) *string { return &c.DatabaseURL }),
	},
	{
		Name: "REDIS_URL", Secret: true,
		Description: "`redis://host:port/db` (`rediss://` for TLS) uses that Redis for the job queue, caches and rate limits; empty starts an in-process Redis-compatible server (its queue is kept in memory only).",
		bind:        stringVar(func(c *Config) *string { return &c.RedisURL }),
	},
	{
		Name: "DATA_DIR", Default: "./data",
		Description: "Media files, audio, recordings, the embedded database and the generated secrets.",
		bind:        stringVar(func(c *Config) *string { return &c.DataDir }),
	},
	{
		Name: "PUBLIC_URL", Default: "http://localhost:8080",
		Description: "The externally visible base URL (redirect links, media and recording links).",
		bind:        baseURLVar(func(c *Config) *string { return &c.PublicURL }),
	},
	{
		Name: "JWT_SECRET", Secret: true,
		DefaultDoc:  "generated once and kept in `$DATA_DIR/jwt_secret`",
		Description: "HMAC key for access, refresh and WebSocket tokens; any non-empty string.",
		bind:        stringVar(func(c *Config) *string { return &c.JWTSecret }),
	},
	{
		Name: "ENCRYPTION_KEY", Secret: true,
		DefaultDoc:  "generated once and kept in `$DATA_DIR/encryption_key`",
		Description: "Secret for data stored at rest (account access tokens, app secrets, SSO and webhook secrets); any non-empty string, the AES-256 key is derived from it with HKDF-SHA256. Losing it makes those secrets unreadable.",
		bind:        stringVar(func(c *Config) *string { return &c.EncryptionKey }),
	},
	{
		Name: "PROVIDER_BASE_URL", Default: "https://graph.facebook.com",
		Description: "Base of the platform's Graph API; provider calls go to `PROVIDER_BASE_URL/{api_version}/...`.",
		bind:        baseURLVar(func(c *Config) *string { return &c.ProviderBaseURL }),
	},
	{
		Name: "ADMIN_EMAIL", Default: "admin@localhost",
		Description: "E-mail of the super admin created on first start with an empty database.",
		bind:        stringVar(func(c *Config) *string { return &c.AdminEmail }),
	},
	{
		Name: "ADMIN_PASSWORD", Secret: true,
		DefaultDoc:  "random (printed once in the log)",
		Description: "Password of that super admin.",
		bind:        stringVar(func(c *Config) *string { return &c.AdminPassword }),
	},
	{
		Name: "ADMIN_ORG_NAME", Default: "Default",
		Description: "Name of the organization created with the super admin, who is its Admin.",
		bind:        stringVar(func(c *Config) *string { return &c.AdminOrgName }),
	},
	{
		Name: "COOKIE_SECURE", Default: "true",
		Description: "The Secure flag of the auth cookies (set `false` for plain-http use other than on localhost).",
		bind:        boolVar(func(c *Config) *bool { return &c.CookieSecure }),
	},
	{
		Name: "AI_OPENAI_BASE_URL", Default: "https://api.openai.com/v1",
		Description: "OpenAI endpoint for chatbot AI replies (`/chat/completions` is appended).",
		bind:        baseURLVar(func(c *Config) *string { return &c.AIOpenAIBaseURL }),
	},
	{
		Name: "AI_ANTHROPIC_BASE_URL", Default: "https://api.anthropic.com",
		Description: "Anthropic endpoint for chatbot AI replies (`/v1/messages` is appended).",
		bind:        baseURLVar(func(c *Config) *string { return &c.AIAnthropicBaseURL }),
	},
	{
		Name: "AI_GOOGLE_BASE_URL", Default: "https://generativelanguage.googleapis.com",
		Description: "Google Gemini endpoint for chatbot AI replies (`/v1beta/models/...` is appended).",
		bind:        baseURLVar(func(c *Config) *string { return &c.AIGoogleBaseURL }),
	},
	{
		Name: "OUTBOUND_ALLOW_PRIVATE", Default: "false",
		Description: "Allow user-configured outbound requests to loopback, private, link-local and metadata addresses (local development and tests only).",
		bind:        boolVar(func(c *Config) *bool { return &c.OutboundAllowPrivate }),
	},
	{
		Name: "WEBHOOK_DELIVERY_RETENTION", Default: "720h",
		Description: "How long a finished outbound webhook delivery (delivered, or failed after its last attempt) is kept with its attempts, for the delivery log and replay; `0` keeps them forever. Deliveries still waiting are never removed.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.WebhookRetention }),
	},
	{
		Name: "LOG_LEVEL", Default: "info",
		Description: "`debug`, `info`, `warn` or `error`.",
		bind:        levelVar(func(c *Config) *slog.Level { return &c.LogLevel }),
	},
	{
		Name: "LOG_FORMAT", Default: LogFormatAuto,
		Description: "`json`, `text`, or `auto`: JSON unless the log goes to a terminal.",
		bind:        lowerVar(func(c *Config) *string { return &c.LogFormat }),
	},
	{
		Name: "RUN_MODE", Default: RunModeAll,
		Description: "`all` (HTTP server and background worker), `http` or `worker`, to scale them separately; those two need a `REDIS_URL` (and should have a `DATABASE_URL`) shared by all processes.",
		bind:        lowerVar(func(c *Config) *string { return &c.RunMode }),
	},
	{
		Name: "WORKER_CONCURRENCY", Default: "10",
		Description: "Background tasks processed at the same time by one process.",
		bind:        intVar(func(c *Config) *int { return &c.WorkerConcurrency }),
	},
	{
		Name: "RATE_LIMIT_PER_MINUTE", Default: "600",
		Description: "API requests per minute for each authenticated user or API key (sliding window).",
		bind:        intVar(func(c *Config) *int { return &c.RateLimitPerMinute }),
	},
	{
		Name: "RATE_LIMIT_ANON_PER_MINUTE", Default: "120",
		Description: "API requests per minute for each client IP without credentials (sliding window).",
		bind:        intVar(func(c *Config) *int { return &c.RateLimitAnonPerMinute }),
	},
	{
		Name: "ACCESS_TOKEN_TTL", Default: "1h",
		Description: "Lifetime of access tokens (Go duration such as `15m` or `1h`).",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.AccessTokenTTL }),
	},
	{
		Name: "REFRESH_TOKEN_TTL", Default: "168h",
		Description: "Lifetime of refresh tokens; longer than `ACCESS_TOKEN_TTL`.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.RefreshTokenTTL }),
	},
	{
		Name:        "TRUSTED_PROXIES",
		Description: "Comma-separated CIDRs (or addresses) of reverse proxies whose `X-Forwarded-For` / `X-Real-IP` give the client address; empty: the client address is the TCP peer, and those headers are ignored.",
		bind:        listVar(func(c *Config) *[]string { return &c.TrustedProxies }),
	},
	{
		Name: "HTTP_READ_HEADER_TIMEOUT", Default: "10s",
		Description: "Time a client has to send a request's headers.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.HTTPReadHeaderTimeout }),
	},
	{
		Name: "HTTP_READ_TIMEOUT", Default: "60s",
		Description: "Time a client has to send a whole request, body included (media uploads get `HTTP_UPLOAD_TIMEOUT`); WebSocket connections are exempt.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.HTTPReadTimeout }),
	},
	{
		Name: "HTTP_UPLOAD_TIMEOUT", Default: "10m",
		Description: "Time a client has to send a multipart upload (media and template sends, the profile photo) and to read a stored media file.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.HTTPUploadTimeout }),
	},
	{
		Name: "HTTP_WRITE_TIMEOUT", Default: "120s",
		Description: "Time from the end of a request's headers until its answer is written (longer than the 60 s of the slowest outbound call a request makes); WebSocket connections are exempt.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.HTTPWriteTimeout }),
	},
	{
		Name: "HTTP_IDLE_TIMEOUT", Default: "120s",
		Description: "How long an idle keep-alive connection is kept open.",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.HTTPIdleTimeout }),
	},
	{
		Name: "HTTP_MAX_CONNS_PER_ADDRESS", Default: "256",
		Description: "Open HTTP connections (keep-alive ones included, WebSockets not) allowed per client address on each server process, an IPv6 address counted by its /64; one more is closed before anything is read from it. The address is the TCP peer: connections from `TRUSTED_PROXIES` are not counted (the proxy's own limits apply to its clients).",
		bind:        intVar(func(c *Config) *int { return &c.HTTPConnsPerAddress }),
	},
	{
		Name: "WS_MAX_PER_USER", Default: "20",
		Description: "Open WebSocket connections (`/ws` and GraphQL subscriptions together) allowed per user or API key, across all server processes.",
		bind:        intVar(func(c *Config) *int { return &c.WSMaxPerUser }),
	},
	{
		Name: "WS_MAX_PER_ADDRESS", Default: "50",
		Description: "Open WebSocket connections allowed per client address, across all server processes.",
		bind:        intVar(func(c *Config) *int { return &c.WSMaxPerAddress }),
	},
	{
		Name:        "METRICS_ADDR",
		Description: "Listen address of a separate listener for `/metrics`; empty serves `/metrics` on `LISTEN_ADDR`.",
		bind:        stringVar(func(c *Config) *string { return &c.MetricsAddr }),
	},
	{
		Name: "METRICS_TOKEN", Secret: true,
		Description: "When set, `/metrics` needs `Authorization: Bearer <token>`; empty leaves it open to anyone who reaches its listener.",
		bind:        stringVar(func(c *Config) *string { return &c.MetricsToken }),
	},
	{
		Name:        "PPROF_ADDR",
		Description: "Loopback listen address (for example `127.0.0.1:6060`) of a separate listener for Go's profiling endpoints `/debug/pprof/`; empty (the default) serves none. Only a loopback host is accepted: the profiles show the process's internals.",
		bind:        stringVar(func(c *Config) *string { return &c.PprofAddr }),
	},
	{
		Name:        "RTC_LISTEN_ADDRS",
		Description: "Calling media: comma-separated IP addresses of this host that the media engine gathers ICE candidates on and receives audio at, and no others (for example the one interface the platform reaches, or `127.0.0.1` in a network namespace or container reached on loopback). A loopback address counts only when listed; `::1` cannot carry ICE (use `127.0.0.1`). IPv4 and IPv6 are gathered as the addresses listed. Each must be an address of the host when the server starts, or it does not start. Empty: every address of `RTC_INTERFACES`, loopback left out.",
		bind:        listVar(func(c *Config) *[]string { return &c.RTCListenAddrs }),
	},
	{
		Name:        "RTC_INTERFACES",
		Description: "Calling media: comma-separated names of the network interfaces (for example `eth1`) the media engine gathers on, and no others; naming the loopback interface (`lo`) includes `127.0.0.1`. With `RTC_LISTEN_ADDRS` an address must satisfy both. Each must exist when the server starts. Empty: every interface that is up.",
		bind:        listVar(func(c *Config) *[]string { return &c.RTCInterfaces }),
	},
	{
		Name:        "RTC_PUBLIC_IP",
		Description: "Calling media: when the server sits behind a 1:1 NAT, its public IP address, which is then the only address announced in ICE candidates (each host candidate carries it in place of the local address) and the only IP family gathered. On a host with several addresses of that family, set `RTC_LISTEN_ADDRS` (or `RTC_INTERFACES`) to the one the NAT forwards to. Empty: the gathered addresses are announced as they are.",
		bind:        stringVar(func(c *Config) *string { return &c.RTCPublicIP }),
	},
	{
		Name: "RTC_UDP_PORT_MIN", Default: "0",
		Description: "Calling media: lowest UDP port of the media engine (1024–65535, with `RTC_UDP_PORT_MAX`); 0 with `RTC_UDP_PORT_MAX` 0 uses any port.",
		bind:        intVar(func(c *Config) *int { return &c.RTCUDPPortMin }),
	},
	{
		Name: "RTC_UDP_PORT_MAX", Default: "0",
		Description: "Calling media: highest UDP port of the media engine (at least `RTC_UDP_PORT_MIN`); 0 with `RTC_UDP_PORT_MIN` 0 uses any port.",
		bind:        intVar(func(c *Config) *int { return &c.RTCUDPPortMax }),
	},
	{
		Name: "RTC_UDP_PORT", Default: "0",
		Description: "Calling media: one UDP port (1024–65535) that every call shares on each address gathered on, calls told apart by their ICE credentials: one firewall or port-forwarding rule for all of them. Not with `RTC_UDP_PORT_MIN`/`RTC_UDP_PORT_MAX`. The port must be free when the server starts. 0: each call leg gets a port of its own.",
		bind:        intVar(func(c *Config) *int { return &c.RTCUDPPort }),
	},
	{
		Name: "STUN_URLS", Default: "stun:stun.l.google.com:19302", EmptyIsValue: true,
		Description: "Comma-separated `stun:`/`stuns:` URLs handed to browsers as ICE servers (`GET /api/calls/ice-servers`). Set but empty (`STUN_URLS=`): no STUN server (a host reached on loopback or a private network only); unset: the default.",
		bind:        listVar(func(c *Config) *[]string { return &c.STUNURLs }),
	},
	{
		Name:        "TURN_URLS",
		Description: "Comma-separated `turn:`/`turns:` URLs handed to browsers as ICE servers; empty hands out no TURN server.",
		bind:        listVar(func(c *Config) *[]string { return &c.TURNURLs }),
	},
	{
		Name: "TURN_SECRET", Secret: true,
		Description: "Shared secret of the TURN server (coturn's `use-auth-secret`): TURN credentials follow the TURN REST scheme, username `<unix expiry>:<user id>`, password base64 HMAC-SHA1 of the username. Empty hands out the TURN URLs without credentials.",
		bind:        stringVar(func(c *Config) *string { return &c.TURNSecret }),
	},
	{
		Name: "TURN_TTL", Default: "1h",
		Description: "Lifetime of the TURN credentials handed out (Go duration).",
		bind:        durationVar(func(c *Config) *time.Duration { return &c.TURNTTL }),
	},
	{
		Name: "GOGC", Default: "150",
		Description: "The Go garbage collector's target: a collection starts when the heap has grown by this percentage of what the last one left live (`off`: never). The server applies it at start (the Go runtime's own default is 100): 150 cuts the collections' CPU under webhook load by about a third for some 10–15 MiB more memory. `GOMEMLIMIT` (read by the Go runtime, for example `120MiB`) caps the heap's growth if memory is tight.",
		bind:        gcPercentVar(func(c *Config) *int { return &c.GCPercent }),
	},
}

func stringVar(field func(*Config) *string) binding {
	return binding{
		set: func(c *Config, raw string) error { *field(c) = raw; return nil },
		get: func(c *Config) string { return *field(c) },
	}
}

// lowerVar is for enumerations, which are matched case-insensitively.
func lowerVar(field func(*Config) *string) binding {
	return binding{
		set: func(c *Config, raw string) error { *field(c) = strings.ToLower(raw); return nil },
		get: func(c *Config) string { return *field(c) },
	}
}

// baseURLVar drops trailing slashes so callers can append paths.
func baseURLVar(field func(*Config) *string) binding {
	return binding{
		set: func(c *Config, raw string) error { *field(c) = strings.TrimRight(raw, "/"); return nil },
		get: func(c *Config) string { return *field(c) },
	}
}

// listVar reads a comma-separated list, dropping blank items.
func listVar(field func(*Config) *[]string) binding {
	return binding{
		set: func(c *Config, raw string) error {
			var items []string
			for _, item := range strings.Split(raw, ",") {
				if item = strings.TrimSpace(item); item != "" {
					items = append(items, item)
				}
			}
			*field(c) = items
			return nil
		},
		get: func(c *Config) string { return strings.Join(*field(c), ",") },
	}
}

func boolVar(field func(*Config) *bool) binding {
	return binding{
		set: func(c *Config, raw string) error {
			v, err := strconv.ParseBool(raw)
			if err != nil {
				return fmt.Errorf("want true or false, got %q", raw)
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) string { return strconv.FormatBool(*field(c)) },
	}
}

func intVar(field func(*Config) *int) binding {
	return binding{
		set: func(c *Config, raw string) error {
			v, err := strconv.Atoi(raw)
			if err != nil {
				return fmt.Errorf("want an integer, got %q", raw)
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) string { return strconv.Itoa(*field(c)) },
	}
}

// gcPercentVar reads a percentage or "off" (-1), as the GOGC variable
// of the Go runtime.
func gcPercentVar(field func(*Config) *int) binding {
	return binding{
		set: func(c *Config, raw string) error {
			if strings.EqualFold(raw, "off") {
				*field(c) = -1
				return nil
			}
			v, err := strconv.Atoi(raw)
			if err != nil || v < 0 {
				return fmt.Errorf("want a percentage such as 100 or off, got %q", raw)
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) string {
			if *field(c) < 0 {
				return "off"
			}
			return strconv.Itoa(*field(c))
		},
	}
}

func durationVar(field func(*Config) *time.Duration) binding {
	return binding{
		set: func(c *Config, raw string) error {
			v, err := time.ParseDuration(raw)
			if err != nil {
				return fmt.Errorf("want a duration such as 90s, 15m or 1h, got %q", raw)
			}
			*field(c) = v
			return nil
		},
		get: func(c *Config) string { return field(c).String() },
	}
}

func levelVar(field func(*Config) *slog.Level) binding {
	return binding{
		set: func(c *Config, raw string) error {
			var l slog.Level
			if err := l.UnmarshalText([]byte(raw)); err != nil {
				return fmt.Errorf("want debug, info, warn or error, got %q", raw)
			}
			*field(c) = l
			return nil
		},
		get: func(c *Config) string { return strings.ToLower(field(c).String()) },
	}
}
