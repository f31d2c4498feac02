package config_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"switchboard/config"
)

// env is a lookup over a fixed map, standing in for the process environment.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// MustLoad loads a configuration from vars or fails the test.
func MustLoad(tb testing.TB, vars map[string]string) *config.Config {
	tb.Helper()
	c, err := config.Load(env(vars))
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return c
}

func writeFile(tb testing.TB, dir, name, content string) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	defaults := config.Config{
		ListenAddr:             ":8080",
		DataDir:                "./data",
		PublicURL:              "http://localhost:8080",
		ProviderBaseURL:        "https://graph.facebook.com",
		AdminEmail:             "admin@localhost",
		AdminOrgName:           "Default",
		CookieSecure:           true,
		AIOpenAIBaseURL:        "https://api.openai.com/v1",
		AIAnthropicBaseURL:     "https://api.anthropic.com",
		AIGoogleBaseURL:        "https://generativelanguage.googleapis.com",
		LogLevel:               slog.LevelInfo,
		LogFormat:              config.LogFormatAuto,
		RunMode:                config.RunModeAll,
		WorkerConcurrency:      10,
		RateLimitPerMinute:     600,
		RateLimitAnonPerMinute: 120,
		AccessTokenTTL:         time.Hour,
		RefreshTokenTTL:        168 * time.Hour,
		HTTPReadHeaderTimeout:  10 * time.Second,
		HTTPReadTimeout:        time.Minute,
		HTTPUploadTimeout:      10 * time.Minute,
		HTTPWriteTimeout:       2 * time.Minute,
		HTTPIdleTimeout:        2 * time.Minute,
		WSMaxPerUser:           20,
		WSMaxPerAddress:        50,
		HTTPConnsPerAddress:    256,
		WebhookRetention:       720 * time.Hour,
		GCPercent:              150,
		STUNURLs:               []string{"stun:stun.l.google.com:19302"},
		TURNTTL:                time.Hour,
	}
	with := func(change func(c *config.Config)) *config.Config {
		c := defaults
		change(&c)
		return &c
	}
	secrets := t.TempDir()

	tests := []struct {
		name    string
		vars    map[string]string
		want    *config.Config
		wantErr []string // substrings of the error, all of which must appear
	}{
		{name: "Defaults", vars: nil, want: &defaults},
		{name: "EmptyMeansDefault", vars: map[string]string{"LISTEN_ADDR": "", "COOKIE_SECURE": " ", "WORKER_CONCURRENCY": ""}, want: &defaults},
		// A loopback-only host hands browsers no STUN server.
		{name: "STUNURLsSetEmptyIsNone", vars: map[string]string{"STUN_URLS": " "}, want: with(func(c *config.Config) { c.STUNURLs = nil })},
		{
			name: "AllSet",
			vars: map[string]string{
				"LISTEN_ADDR": "127.0.0.1:9000", "DATABASE_URL": "postgres://u:p@db/app", "REDIS_URL": "redis://cache:6379/2",
				"DATA_DIR": "/var/lib/sb", "PUBLIC_URL": "https://sb.example.com", "JWT_SECRET": "j", "ENCRYPTION_KEY": "e",
				"PROVIDER_BASE_URL": "http://127.0.0.1:4000", "ADMIN_EMAIL": "root@example.com", "ADMIN_PASSWORD": "pw",
				"ADMIN_ORG_NAME": "Acme", "COOKIE_SECURE": "false", "AI_OPENAI_BASE_URL": "http://ai/openai",
				"AI_ANTHROPIC_BASE_URL": "http://ai/anthropic", "AI_GOOGLE_BASE_URL": "http://ai/google",
				"OUTBOUND_ALLOW_PRIVATE": "true", "LOG_LEVEL": "debug", "LOG_FORMAT": "text", "RUN_MODE": "worker",
				"WORKER_CONCURRENCY": "3", "RATE_LIMIT_PER_MINUTE": "60", "RATE_LIMIT_ANON_PER_MINUTE": "6",
				"ACCESS_TOKEN_TTL": "15m", "REFRESH_TOKEN_TTL": "24h", "TRUSTED_PROXIES": " 10.0.0.0/8, ,fd00::/8,192.0.2.7 ",
				"HTTP_READ_HEADER_TIMEOUT": "2s", "HTTP_READ_TIMEOUT": "3s", "HTTP_UPLOAD_TIMEOUT": "4s",
				"HTTP_WRITE_TIMEOUT": "5s", "HTTP_IDLE_TIMEOUT": "6s", "WS_MAX_PER_USER": "7", "WS_MAX_PER_ADDRESS": "8",
				"HTTP_MAX_CONNS_PER_ADDRESS": "9", "METRICS_ADDR": "127.0.0.1:9100", "METRICS_TOKEN": "m", "PPROF_ADDR": "127.0.0.1:6060", "GOGC": "off",
				"RTC_PUBLIC_IP": "203.0.113.7", "RTC_UDP_PORT_MIN": "40000", "RTC_UDP_PORT_MAX": "40100",
				"RTC_LISTEN_ADDRS": "10.0.0.5, 127.0.0.1", "RTC_INTERFACES": "eth1,lo",
				"STUN_URLS": "stun:stun.example.com:3478, stuns:stun.example.com", "TURN_URLS": "turn:turn.example.com:3478?transport=udp,turns:turn.example.com:5349",
				"TURN_SECRET": "ts", "TURN_TTL": "30m", "WEBHOOK_DELIVERY_RETENTION": "0",
			},
			want: &config.Config{
				ListenAddr: "127.0.0.1:9000", DatabaseURL: "postgres://u:p@db/app", RedisURL: "redis://cache:6379/2",
				DataDir: "/var/lib/sb", PublicURL: "https://sb.example.com", JWTSecret: "j", EncryptionKey: "e",
				ProviderBaseURL: "http://127.0.0.1:4000", AdminEmail: "root@example.com", AdminPassword: "pw",
				AdminOrgName: "Acme", CookieSecure: false, AIOpenAIBaseURL: "http://ai/openai",
				AIAnthropicBaseURL: "http://ai/anthropic", AIGoogleBaseURL: "http://ai/google",
				OutboundAllowPrivate: true, LogLevel: slog.LevelDebug, LogFormat: "text", RunMode: "worker",
				WorkerConcurrency: 3, RateLimitPerMinute: 60, RateLimitAnonPerMinute: 6,
				AccessTokenTTL: 15 * time.Minute, RefreshTokenTTL: 24 * time.Hour,
				TrustedProxies:        []string{"10.0.0.0/8", "fd00::/8", "192.0.2.7"},
				HTTPReadHeaderTimeout: 2 * time.Second, HTTPReadTimeout: 3 * time.Second, HTTPUploadTimeout: 4 * time.Second,
				HTTPWriteTimeout: 5 * time.Second, HTTPIdleTimeout: 6 * time.Second, WSMaxPerUser: 7, WSMaxPerAddress: 8,
				HTTPConnsPerAddress: 9, MetricsAddr: "127.0.0.1:9100", MetricsToken: "m", PprofAddr: "127.0.0.1:6060", GCPercent: -1,
				RTCPublicIP: "203.0.113.7", RTCUDPPortMin: 40000, RTCUDPPortMax: 40100,
				RTCListenAddrs: []string{"10.0.0.5", "127.0.0.1"}, RTCInterfaces: []string{"eth1", "lo"},
				STUNURLs:   []string{"stun:stun.example.com:3478", "stuns:stun.example.com"},
				TURNURLs:   []string{"turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:5349"},
				TURNSecret: "ts", TURNTTL: 30 * time.Minute,
			},
		},
		{
			name: "TrailingSlashTrimmed",
			vars: map[string]string{"PUBLIC_URL": "https://sb.example.com/", "PROVIDER_BASE_URL": "http://fake:1//"},
			want: with(func(c *config.Config) { c.PublicURL = "https://sb.example.com"; c.ProviderBaseURL = "http://fake:1" }),
		},
		{
			name: "EnumsCaseInsensitive",
			vars: map[string]string{"RUN_MODE": "ALL", "LOG_FORMAT": "Json", "LOG_LEVEL": "WARN"},
			want: with(func(c *config.Config) { c.LogFormat = "json"; c.LogLevel = slog.LevelWarn }),
		},
		{
			name: "SecretsFromFiles",
			vars: map[string]string{
				"JWT_SECRET_FILE":     writeFile(t, secrets, "jwt", "from-file\n"),
				"ENCRYPTION_KEY_FILE": writeFile(t, secrets, "key", "  key-from-file \r\n"),
				"ADMIN_PASSWORD_FILE": writeFile(t, secrets, "pw", "hunter2"),
				"DATABASE_URL_FILE":   writeFile(t, secrets, "db", "postgresql://db/app\n"),
				"REDIS_URL_FILE":      writeFile(t, secrets, "redis", "rediss://cache:6380/0\n"),
			},
			want: with(func(c *config.Config) {
				c.JWTSecret, c.EncryptionKey, c.AdminPassword = "from-file", "key-from-file", "hunter2"
				c.DatabaseURL, c.RedisURL = "postgresql://db/app", "rediss://cache:6380/0"
			}),
		},
		{
			name: "FileVariantIgnoredForNonSecret",
			vars: map[string]string{"LISTEN_ADDR_FILE": "/does/not/exist"},
			want: &defaults,
		},
		{
			name:    "ErrSecretAndFileBothSet",
			vars:    map[string]string{"JWT_SECRET": "a", "JWT_SECRET_FILE": writeFile(t, secrets, "jwt2", "b")},
			wantErr: []string{"JWT_SECRET and JWT_SECRET_FILE are both set"},
		},
		{
			name:    "ErrSecretFileMissing",
			vars:    map[string]string{"ENCRYPTION_KEY_FILE": filepath.Join(secrets, "missing")},
			wantErr: []string{"ENCRYPTION_KEY_FILE", "no such file"},
		},
		{
			name:    "ErrUnparsableValues",
			vars:    map[string]string{"COOKIE_SECURE": "yes please", "WORKER_CONCURRENCY": "ten", "ACCESS_TOKEN_TTL": "3600", "LOG_LEVEL": "loud"},
			wantErr: []string{"COOKIE_SECURE", "WORKER_CONCURRENCY", "ACCESS_TOKEN_TTL", "LOG_LEVEL"},
		},
		{
			name:    "ErrGOGC",
			vars:    map[string]string{"GOGC": "-5"},
			wantErr: []string{"GOGC: want a percentage"},
		},
		{
			name: "GOGCOffAnyCase",
			vars: map[string]string{"GOGC": "OFF"},
			want: with(func(c *config.Config) { c.GCPercent = -1 }),
		},
		{
			name:    "ErrInvalidCombination",
			vars:    map[string]string{"ACCESS_TOKEN_TTL": "2h", "REFRESH_TOKEN_TTL": "1h"},
			wantErr: []string{"REFRESH_TOKEN_TTL: must be longer than ACCESS_TOKEN_TTL"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Load(env(tt.vars))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Load succeeded, want error containing %q", tt.wantErr)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Load:\n got %+v\nwant %+v", *got, *tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(c *config.Config)
		wantErr string // "" for valid
	}{
		{"OK", func(c *config.Config) {}, ""},
		{"OKPostgresqlScheme", func(c *config.Config) { c.DatabaseURL = "postgresql://u@db:5432/app?sslmode=require" }, ""},
		{"OKUnixSocketPostgres", func(c *config.Config) { c.DatabaseURL = "postgres:///app?host=/var/run/postgresql" }, ""},
		{"OKRediss", func(c *config.Config) { c.RedisURL = "rediss://:pw@cache:6380/1" }, ""},
		{"ErrDatabaseURLScheme", func(c *config.Config) { c.DatabaseURL = "mysql://u:hunter2@db/app" }, "DATABASE_URL: URL scheme"},
		{"ErrRedisURLScheme", func(c *config.Config) { c.RedisURL = "http://cache:6379" }, "REDIS_URL: URL scheme"},
		{"ErrPublicURLRelative", func(c *config.Config) { c.PublicURL = "sb.example.com" }, "PUBLIC_URL"},
		{"ErrPublicURLNoHost", func(c *config.Config) { c.PublicURL = "https://" }, "PUBLIC_URL: URL has no host"},
		{"ErrProviderScheme", func(c *config.Config) { c.ProviderBaseURL = "ftp://graph" }, "PROVIDER_BASE_URL"},
		{"ErrAIBaseURL", func(c *config.Config) { c.AIGoogleBaseURL = "" }, "AI_GOOGLE_BASE_URL"},
		{"ErrListenAddr", func(c *config.Config) { c.ListenAddr = "8080" }, "LISTEN_ADDR"},
		{"ErrDataDirEmpty", func(c *config.Config) { c.DataDir = " " }, "DATA_DIR"},
		{"ErrAdminEmail", func(c *config.Config) { c.AdminEmail = "Admin <admin@x>" }, "ADMIN_EMAIL"},
		{"ErrAdminOrgName", func(c *config.Config) { c.AdminOrgName = "" }, "ADMIN_ORG_NAME"},
		{"ErrRunMode", func(c *config.Config) { c.RunMode = "cron" }, "RUN_MODE: want all, http, worker"},
		{"OKSplitRunModeWithRedis", func(c *config.Config) { c.RunMode = config.RunModeWorker; c.RedisURL = "redis://cache:6379/0" }, ""},
		{"ErrSplitRunModeWithoutRedis", func(c *config.Config) { c.RunMode = config.RunModeHTTP }, "RUN_MODE: \"http\" needs REDIS_URL"},
		{"ErrLogFormat", func(c *config.Config) { c.LogFormat = "xml" }, "LOG_FORMAT"},
		{"ErrWorkerConcurrency", func(c *config.Config) { c.WorkerConcurrency = 0 }, "WORKER_CONCURRENCY"},
		{"ErrRateLimit", func(c *config.Config) { c.RateLimitPerMinute = -1 }, "RATE_LIMIT_PER_MINUTE"},
		{"ErrRateLimitAnon", func(c *config.Config) { c.RateLimitAnonPerMinute = 0 }, "RATE_LIMIT_ANON_PER_MINUTE"},
		{"ErrAccessTTL", func(c *config.Config) { c.AccessTokenTTL = -time.Minute }, "ACCESS_TOKEN_TTL: must be positive"},
		{"ErrRefreshTTL", func(c *config.Config) { c.RefreshTokenTTL = 0 }, "REFRESH_TOKEN_TTL: must be positive"},
		{"ErrRefreshNotLonger", func(c *config.Config) { c.RefreshTokenTTL = c.AccessTokenTTL }, "REFRESH_TOKEN_TTL: must be longer"},
		{"OKTrustedProxies", func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.0/8", "::1", "2001:db8::/32"} }, ""},
		{"ErrTrustedProxyNotCIDR", func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.0/8", "proxy.local"} }, "TRUSTED_PROXIES: want a CIDR"},
		{"ErrTrustedProxyBadMask", func(c *config.Config) { c.TrustedProxies = []string{"10.0.0.0/33"} }, "TRUSTED_PROXIES"},
		{"ErrReadTimeout", func(c *config.Config) { c.HTTPReadTimeout = 0 }, "HTTP_READ_TIMEOUT: must be positive"},
		{"ErrWriteTimeout", func(c *config.Config) { c.HTTPWriteTimeout = -time.Second }, "HTTP_WRITE_TIMEOUT: must be positive"},
		{"ErrWSMaxPerUser", func(c *config.Config) { c.WSMaxPerUser = 0 }, "WS_MAX_PER_USER"},
		{"ErrHTTPConnsPerAddress", func(c *config.Config) { c.HTTPConnsPerAddress = 0 }, "HTTP_MAX_CONNS_PER_ADDRESS"},
		{"OKWebhookRetentionForever", func(c *config.Config) { c.WebhookRetention = 0 }, ""},
		{"ErrWebhookRetentionNegative", func(c *config.Config) { c.WebhookRetention = -time.Hour }, "WEBHOOK_DELIVERY_RETENTION: must not be negative"},
		{"ErrMetricsAddr", func(c *config.Config) { c.MetricsAddr = "9100" }, "METRICS_ADDR"},
		{"ErrMetricsAddrIsListenAddr", func(c *config.Config) { c.MetricsAddr = c.ListenAddr }, "METRICS_ADDR: must differ"},
		{"OKPprofAddr", func(c *config.Config) { c.PprofAddr = "127.0.0.1:6060" }, ""},
		{"OKPprofAddrLocalhost", func(c *config.Config) { c.PprofAddr = "localhost:6060" }, ""},
		{"OKPprofAddrIPv6", func(c *config.Config) { c.PprofAddr = "[::1]:6060" }, ""},
		{"ErrPprofAddrPublic", func(c *config.Config) { c.PprofAddr = ":6060" }, "PPROF_ADDR: host must be a loopback"},
		{"ErrPprofAddrOtherHost", func(c *config.Config) { c.PprofAddr = "10.0.0.5:6060" }, "PPROF_ADDR: host must be a loopback"},
		{"ErrPprofAddrIsListenAddr", func(c *config.Config) { c.ListenAddr = "127.0.0.1:8080"; c.PprofAddr = c.ListenAddr }, "PPROF_ADDR: must differ"},
		{"OKRTCPublicIPv6", func(c *config.Config) { c.RTCPublicIP = "2001:db8::7" }, ""},
		{"ErrRTCPublicIP", func(c *config.Config) { c.RTCPublicIP = "media.example.com" }, "RTC_PUBLIC_IP: want an IP address"},
		{"OKRTCPortRange", func(c *config.Config) { c.RTCUDPPortMin, c.RTCUDPPortMax = 1024, 65535 }, ""},
		{"OKRTCOnePort", func(c *config.Config) { c.RTCUDPPortMin, c.RTCUDPPortMax = 50000, 50000 }, ""},
		{"ErrRTCOnlyMin", func(c *config.Config) { c.RTCUDPPortMin = 40000 }, "set both RTC_UDP_PORT_MIN and RTC_UDP_PORT_MAX"},
		{"ErrRTCOnlyMax", func(c *config.Config) { c.RTCUDPPortMax = 40000 }, "set both"},
		{"ErrRTCMinPrivileged", func(c *config.Config) { c.RTCUDPPortMin, c.RTCUDPPortMax = 80, 90 }, "RTC_UDP_PORT_MIN: want a port between 1024 and 65535"},
		{"ErrRTCMaxTooHigh", func(c *config.Config) { c.RTCUDPPortMin, c.RTCUDPPortMax = 40000, 70000 }, "RTC_UDP_PORT_MAX: want a port between"},
		{"ErrRTCMinAboveMax", func(c *config.Config) { c.RTCUDPPortMin, c.RTCUDPPortMax = 40100, 40000 }, "RTC_UDP_PORT_MAX: must be at least RTC_UDP_PORT_MIN"},
		{"ErrRTCNegative", func(c *config.Config) { c.RTCUDPPortMin, c.RTCUDPPortMax = -1, 40000 }, "RTC_UDP_PORT_MIN: want a port"},
		{"OKRTCUDPPort", func(c *config.Config) { c.RTCUDPPort = 3478 }, ""},
		{"ErrRTCUDPPortPrivileged", func(c *config.Config) { c.RTCUDPPort = 443 }, "RTC_UDP_PORT: want a port between 1024 and 65535, got 443"},
		{"ErrRTCUDPPortAndRange", func(c *config.Config) { c.RTCUDPPort, c.RTCUDPPortMin, c.RTCUDPPortMax = 50000, 40000, 40100 }, "RTC_UDP_PORT: set RTC_UDP_PORT or RTC_UDP_PORT_MIN and RTC_UDP_PORT_MAX, not both"},
		{"OKRTCListenLoopback", func(c *config.Config) { c.RTCListenAddrs = []string{"127.0.0.1"} }, ""},
		{"OKRTCListenBothFamilies", func(c *config.Config) { c.RTCListenAddrs = []string{"10.0.0.5", "2001:db8::5"} }, ""},
		{"OKRTCListenBehindPublicIP", func(c *config.Config) {
			c.RTCListenAddrs, c.RTCPublicIP = []string{"10.0.0.5", "2001:db8::5"}, "2001:db8::7"
		}, ""},
		{"ErrRTCListenHostname", func(c *config.Config) { c.RTCListenAddrs = []string{"media.internal"} }, "RTC_LISTEN_ADDRS: want IP addresses such as 10.0.0.5 or 127.0.0.1, got \"media.internal\""},
		{"ErrRTCListenWithPort", func(c *config.Config) { c.RTCListenAddrs = []string{"10.0.0.5:5000"} }, "RTC_LISTEN_ADDRS: want IP addresses"},
		{"ErrRTCListenCIDR", func(c *config.Config) { c.RTCListenAddrs = []string{"10.0.0.0/8"} }, "RTC_LISTEN_ADDRS: want IP addresses"},
		{"ErrRTCListenUnspecified", func(c *config.Config) { c.RTCListenAddrs = []string{"0.0.0.0"} }, "RTC_LISTEN_ADDRS: 0.0.0.0 means every address; leave RTC_LISTEN_ADDRS empty"},
		{"ErrRTCListenIPv6Loopback", func(c *config.Config) { c.RTCListenAddrs = []string{"::1"} }, "RTC_LISTEN_ADDRS: ::1 cannot carry ICE"},
		{"ErrRTCListenLinkLocal", func(c *config.Config) { c.RTCListenAddrs = []string{"fe80::1"} }, "RTC_LISTEN_ADDRS: fe80::1 is link-local"},
		{"ErrRTCListenMulticast", func(c *config.Config) { c.RTCListenAddrs = []string{"224.0.0.251"} }, "RTC_LISTEN_ADDRS: 224.0.0.251 is a multicast address"},
		{"ErrRTCPublicIPOtherFamily", func(c *config.Config) {
			c.RTCListenAddrs, c.RTCPublicIP = []string{"127.0.0.1"}, "2001:db8::7"
		}, "RTC_PUBLIC_IP: 2001:db8::7 is IPv6 but RTC_LISTEN_ADDRS has no IPv6 address"},
		{"ErrRTCPublicIPUnspecified", func(c *config.Config) { c.RTCPublicIP = "0.0.0.0" }, "RTC_PUBLIC_IP: want the address peers reach, got 0.0.0.0"},
		{"ErrRTCInterfaceName", func(c *config.Config) { c.RTCInterfaces = []string{"eth 1"} }, "RTC_INTERFACES: want interface names such as eth0, got \"eth 1\""},
		{"ErrRTCInterfaceTooLong", func(c *config.Config) { c.RTCInterfaces = []string{"averyveryverylongname"} }, "RTC_INTERFACES: want interface names"},
		{"ErrSTUNScheme", func(c *config.Config) { c.STUNURLs = []string{"turn:turn.example.com"} }, "STUN_URLS: want a stun: or stuns: URL"},
		{"ErrSTUNNoHost", func(c *config.Config) { c.STUNURLs = []string{"stun:"} }, "STUN_URLS"},
		{"ErrSTUNBadPort", func(c *config.Config) { c.STUNURLs = []string{"stun:stun.example.com:99999"} }, "STUN_URLS: bad port"},
		{"ErrTURNScheme", func(c *config.Config) { c.TURNURLs = []string{"https://turn.example.com"} }, "TURN_URLS: want a turn: or turns: URL"},
		{"ErrTURNQuery", func(c *config.Config) { c.TURNURLs = []string{"turn:turn.example.com?transport=sctp"} }, "TURN_URLS: only ?transport"},
		{"ErrTURNPath", func(c *config.Config) { c.TURNURLs = []string{"turn://turn.example.com/x"} }, "TURN_URLS"},
		{"ErrTURNTTL", func(c *config.Config) { c.TURNTTL = 0 }, "TURN_TTL: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := MustLoad(t, nil)
			tt.change(c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want error containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks a password: %v", err)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name   string
		dotenv string
		env    map[string]string
		check  func(t *testing.T, c *config.Config, err error)
	}{
		{
			name:   "DotenvRead",
			dotenv: "RATE_LIMIT_ANON_PER_MINUTE=7\n# comment\nADMIN_ORG_NAME=\"From dotenv\"\n",
			check: func(t *testing.T, c *config.Config, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if c.RateLimitAnonPerMinute != 7 || c.AdminOrgName != "From dotenv" {
					t.Errorf("got %d, %q", c.RateLimitAnonPerMinute, c.AdminOrgName)
				}
				if _, set := os.LookupEnv("RATE_LIMIT_ANON_PER_MINUTE"); set {
					t.Error(".env was copied into the process environment")
				}
			},
		},
		{
			name:   "RealEnvWins",
			dotenv: "ADMIN_ORG_NAME=dotenv\n",
			env:    map[string]string{"ADMIN_ORG_NAME": "real"},
			check: func(t *testing.T, c *config.Config, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if c.AdminOrgName != "real" {
					t.Errorf("AdminOrgName = %q, want real", c.AdminOrgName)
				}
			},
		},
		{
			name: "NoDotenv",
			check: func(t *testing.T, c *config.Config, err error) {
				if err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name:   "ErrInvalidValueInDotenv",
			dotenv: "RUN_MODE=sometimes\n",
			check: func(t *testing.T, c *config.Config, err error) {
				if err == nil || !strings.Contains(err.Error(), "RUN_MODE") {
					t.Errorf("err = %v, want RUN_MODE error", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.dotenv != "" {
				writeFile(t, dir, ".env", tt.dotenv)
			}
			t.Chdir(dir)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := config.FromEnv()
			tt.check(t, c, err)
		})
	}
}

func TestEnsureSecrets(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T, dataDir string)
	}{
		{"GeneratesAndPersists", func(t *testing.T, dataDir string) {
			first := MustLoad(t, map[string]string{"DATA_DIR": dataDir})
			if err := first.EnsureSecrets(); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{first.JWTSecret, first.EncryptionKey} {
				if len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "" {
					t.Errorf("secret %q is not 32 bytes of hex", s)
				}
			}
			if first.JWTSecret == first.EncryptionKey {
				t.Error("JWT secret and encryption key are equal")
			}
			assertMode(t, dataDir, 0o700)
			assertMode(t, filepath.Join(dataDir, config.JWTSecretFile), 0o600)
			assertMode(t, filepath.Join(dataDir, config.EncryptionKeyFile), 0o600)

			again := MustLoad(t, map[string]string{"DATA_DIR": dataDir})
			if err := again.EnsureSecrets(); err != nil {
				t.Fatal(err)
			}
			if again.JWTSecret != first.JWTSecret || again.EncryptionKey != first.EncryptionKey {
				t.Error("secrets changed between starts")
			}
		}},
		{"ConfiguredKeptAndNotWritten", func(t *testing.T, dataDir string) {
			c := MustLoad(t, map[string]string{"DATA_DIR": dataDir, "JWT_SECRET": "configured"})
			if err := c.EnsureSecrets(); err != nil {
				t.Fatal(err)
			}
			if c.JWTSecret != "configured" || c.EncryptionKey == "" {
				t.Errorf("JWTSecret = %q, EncryptionKey = %q", c.JWTSecret, c.EncryptionKey)
			}
			if _, err := os.Stat(filepath.Join(dataDir, config.JWTSecretFile)); !os.IsNotExist(err) {
				t.Errorf("configured secret was written to disk (stat: %v)", err)
			}
		}},
		{"ReusesExistingFile", func(t *testing.T, dataDir string) {
			if err := os.MkdirAll(dataDir, 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, dataDir, config.EncryptionKeyFile, "kept-from-before\n")
			c := MustLoad(t, map[string]string{"DATA_DIR": dataDir})
			if err := c.EnsureSecrets(); err != nil {
				t.Fatal(err)
			}
			if c.EncryptionKey != "kept-from-before" {
				t.Errorf("EncryptionKey = %q", c.EncryptionKey)
			}
		}},
		{"ErrEmptyFile", func(t *testing.T, dataDir string) {
			if err := os.MkdirAll(dataDir, 0o700); err != nil {
				t.Fatal(err)
			}
			writeFile(t, dataDir, config.JWTSecretFile, "\n")
			c := MustLoad(t, map[string]string{"DATA_DIR": dataDir})
			if err := c.EnsureSecrets(); err == nil || !strings.Contains(err.Error(), "is empty") {
				t.Errorf("EnsureSecrets = %v, want empty-file error", err)
			}
		}},
		{"ConcurrentStartsAgree", func(t *testing.T, dataDir string) {
			const n = 8
			got := make(chan [2]string, n)
			errs := make(chan error, n)
			for range n {
				go func() {
					c, err := config.Load(env(map[string]string{"DATA_DIR": dataDir}))
					if err == nil {
						err = c.EnsureSecrets()
					}
					if err != nil {
						errs <- err
						return
					}
					got <- [2]string{c.JWTSecret, c.EncryptionKey}
				}()
			}
			var first [2]string
			for i := range n {
				select {
				case err := <-errs:
					t.Fatal(err)
				case s := <-got:
					if i == 0 {
						first = s
					} else if s != first {
						t.Fatalf("process %d got different secrets", i)
					}
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, filepath.Join(t.TempDir(), "nested", "data"))
		})
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s mode = %v, want %v", path, got, want)
	}
}

func TestLogValue(t *testing.T) {
	c := MustLoad(t, map[string]string{
		"JWT_SECRET": "jwt-hunter2", "DATABASE_URL": "postgres://u:db-hunter2@db/app", "ADMIN_PASSWORD": "pw-hunter2",
	})
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "config", c)
	var line struct{ Config map[string]string }
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, option, want string }{
		{"SecretRedacted", "JWT_SECRET", "[set]"},
		{"SecretURLRedacted", "DATABASE_URL", "[set]"},
		{"EmptySecretShownEmpty", "ENCRYPTION_KEY", ""},
		{"PlainShown", "LISTEN_ADDR", ":8080"},
		{"DurationShown", "ACCESS_TOKEN_TTL", "1h0m0s"},
		{"LevelShown", "LOG_LEVEL", "info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := line.Config[tt.option]; !ok || got != tt.want {
				t.Errorf("%s = %q (present %v), want %q", tt.option, got, ok, tt.want)
			}
		})
	}
	if strings.Contains(buf.String(), "hunter2") {
		t.Errorf("log leaks a secret: %s", buf.String())
	}
}

func TestMarkdown(t *testing.T) {
	md := config.Markdown()
	rows := map[string]string{}
	for _, line := range strings.Split(md, "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "`"); ok && strings.HasPrefix(line, "| `") {
			rows[name] = line
		}
	}
	tests := []struct{ name, option, contains string }{
		{"LiteralDefault", "LISTEN_ADDR", "| `:8080` |"},
		{"EmptyDefault", "DATABASE_URL", "| empty |"},
		{"ComputedDefault", "JWT_SECRET", "generated once and kept in `$DATA_DIR/jwt_secret`"},
		{"SecretMarked", "ENCRYPTION_KEY", "yes (or `ENCRYPTION_KEY_FILE`)"},
		{"NotSecret", "PUBLIC_URL", "| no |"},
		{"Operational", "RATE_LIMIT_ANON_PER_MINUTE", "| `120` |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(rows[tt.option], tt.contains) {
				t.Errorf("row %q does not contain %q", rows[tt.option], tt.contains)
			}
		})
	}
	t.Run("EveryOptionOnce", func(t *testing.T) {
		for _, o := range config.Options() {
			if strings.Count(md, "| `"+o.Name+"` |") != 1 {
				t.Errorf("%s: want exactly one row", o.Name)
			}
			if o.Description == "" {
				t.Errorf("%s has no description", o.Name)
			}
		}
		if got, want := len(rows), len(config.Options()); got != want {
			t.Errorf("%d rows, want %d", got, want)
		}
	})
	t.Run("RowsWellFormed", func(t *testing.T) {
		for name, row := range rows {
			if n := strings.Count(row, "|") - strings.Count(row, `\|`); n != 5 {
				t.Errorf("%s: row has %d cell separators, want 5", name, n)
			}
		}
	})
}

func TestRunMode(t *testing.T) {
	tests := []struct {
		mode             string
		wantHTTP, worker bool
	}{
		{config.RunModeAll, true, true},
		{config.RunModeHTTP, true, false},
		{config.RunModeWorker, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			c := MustLoad(t, map[string]string{"RUN_MODE": tt.mode, "REDIS_URL": "redis://cache:6379/0"})
			if c.RunsHTTP() != tt.wantHTTP || c.RunsWorker() != tt.worker {
				t.Errorf("RunsHTTP = %v, RunsWorker = %v", c.RunsHTTP(), c.RunsWorker())
			}
		})
	}
}

func TestSQLitePath(t *testing.T) {
	c := MustLoad(t, map[string]string{"DATA_DIR": "/srv/sb"})
	if got, want := c.SQLitePath(), filepath.Join("/srv/sb", "app.db"); got != want {
		t.Errorf("SQLitePath = %q, want %q", got, want)
	}
}

func TestREADMEHasOptionsTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), config.Markdown()) {
		t.Fatal("README.md's configuration table differs from config.Markdown(); regenerate it")
	}
}
