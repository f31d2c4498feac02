package config

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Validate checks each option and the options against each other, and
// reports every problem at once, each prefixed with the variable's name.
// Secrets left empty are not an error: EnsureSecrets fills them.
func (c *Config) Validate() error {
	var errs []error
	check := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}

	check("LISTEN_ADDR", validListenAddr(c.ListenAddr))
	if c.DatabaseURL != "" {
		check("DATABASE_URL", validURL(c.DatabaseURL, false, "postgres", "postgresql"))
	}
	if c.RedisURL != "" {
		check("REDIS_URL", validURL(c.RedisURL, false, "redis", "rediss"))
	}
	if strings.TrimSpace(c.DataDir) == "" {
		check("DATA_DIR", errors.New("must not be empty"))
	}
	check("PUBLIC_URL", validURL(c.PublicURL, true, "http", "https"))
	check("PROVIDER_BASE_URL", validURL(c.ProviderBaseURL, true, "http", "https"))
	check("AI_OPENAI_BASE_URL", validURL(c.AIOpenAIBaseURL, true, "http", "https"))
	check("AI_ANTHROPIC_BASE_URL", validURL(c.AIAnthropicBaseURL, true, "http", "https"))
	check("AI_GOOGLE_BASE_URL", validURL(c.AIGoogleBaseURL, true, "http", "https"))

	if a, err := mail.ParseAddress(c.AdminEmail); err != nil || a.Address != c.AdminEmail {
		check("ADMIN_EMAIL", fmt.Errorf("want a bare e-mail address, got %q", c.AdminEmail))
	}
	if strings.TrimSpace(c.AdminOrgName) == "" {
		check("ADMIN_ORG_NAME", errors.New("must not be empty"))
	}

	check("LOG_FORMAT", oneOf(c.LogFormat, LogFormatAuto, LogFormatJSON, LogFormatText))
	check("RUN_MODE", oneOf(c.RunMode, RunModeAll, RunModeHTTP, RunModeWorker))
	if (c.RunMode == RunModeHTTP || c.RunMode == RunModeWorker) && c.RedisURL == "" {
		// The in-process Redis is private to one process: an HTTP-only
		// process would enqueue tasks no worker ever sees.
		check("RUN_MODE", fmt.Errorf("%q needs REDIS_URL shared with the other processes", c.RunMode))
	}

	check("WORKER_CONCURRENCY", positive(c.WorkerConcurrency))
	check("RATE_LIMIT_PER_MINUTE", positive(c.RateLimitPerMinute))
	check("RATE_LIMIT_ANON_PER_MINUTE", positive(c.RateLimitAnonPerMinute))

	if c.AccessTokenTTL <= 0 {
		check("ACCESS_TOKEN_TTL", fmt.Errorf("must be positive, got %s", c.AccessTokenTTL))
	}
	if c.RefreshTokenTTL <= 0 {
		check("REFRESH_TOKEN_TTL", fmt.Errorf("must be positive, got %s", c.RefreshTokenTTL))
	} else if c.RefreshTokenTTL <= c.AccessTokenTTL {
		check("REFRESH_TOKEN_TTL", fmt.Errorf("must be longer than ACCESS_TOKEN_TTL (%s), got %s", c.AccessTokenTTL, c.RefreshTokenTTL))
	}

	for _, p := range c.TrustedProxies {
		check("TRUSTED_PROXIES", validCIDR(p))
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{
		{"HTTP_READ_HEADER_TIMEOUT", c.HTTPReadHeaderTimeout}, {"HTTP_READ_TIMEOUT", c.HTTPReadTimeout},
		{"HTTP_UPLOAD_TIMEOUT", c.HTTPUploadTimeout}, {"HTTP_WRITE_TIMEOUT", c.HTTPWriteTimeout},
		{"HTTP_IDLE_TIMEOUT", c.HTTPIdleTimeout},
	} {
		if t.d <= 0 {
			check(t.name, fmt.Errorf("must be positive, got %s", t.d))
		}
	}
	if c.WebhookRetention < 0 {
		check("WEBHOOK_DELIVERY_RETENTION", fmt.Errorf("must not be negative, got %s", c.WebhookRetention))
	}
	check("HTTP_MAX_CONNS_PER_ADDRESS", positive(c.HTTPConnsPerAddress))
	check("WS_MAX_PER_USER", positive(c.WSMaxPerUser))
	check("WS_MAX_PER_ADDRESS", positive(c.WSMaxPerAddress))
	if c.MetricsAddr != "" {
		check("METRICS_ADDR", validListenAddr(c.MetricsAddr))
		if c.MetricsAddr == c.ListenAddr {
			check("METRICS_ADDR", errors.New("must differ from LISTEN_ADDR (leave it empty to serve /metrics there)"))
		}
	}
	if c.PprofAddr != "" {
		check("PPROF_ADDR", loopbackListenAddr(c.PprofAddr))
		if c.PprofAddr == c.ListenAddr || c.PprofAddr == c.MetricsAddr {
			check("PPROF_ADDR", errors.New("must differ from LISTEN_ADDR and METRICS_ADDR"))
		}
	}

	c.validateCalling(check)

	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

// validCIDR accepts a CIDR such as 10.0.0.0/8 or a single address.
func validCIDR(s string) error {
	if _, err := netip.ParsePrefix(s); err == nil {
		return nil
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return nil
	}
	return fmt.Errorf("want a CIDR such as 10.0.0.0/8 or an IP address, got %q", s)
}

func validListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port or :port, got %q", addr)
	}
	if port == "" {
		return fmt.Errorf("missing port in %q", addr)
	}
	return nil
}

// loopbackListenAddr accepts host:port whose host is a loopback address
// or localhost.
func loopbackListenAddr(addr string) error {
	if err := validListenAddr(addr); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("host must be a loopback address (127.0.0.1, ::1 or localhost), got %q", host)
	}
	return nil
}

// validURL checks an absolute URL against the allowed schemes. The error
// never repeats the URL, which may hold a password.
func validURL(raw string, needHost bool, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if err := oneOf(strings.ToLower(u.Scheme), schemes...); err != nil {
		return fmt.Errorf("URL scheme: %w", err)
	}
	if needHost && u.Host == "" {
		return errors.New("URL has no host")
	}
	return nil
}

func oneOf(v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("want %s, got %q", strings.Join(allowed, ", "), v)
}

func positive(n int) error {
	if n <= 0 {
		return fmt.Errorf("must be positive, got %d", n)
	}
	return nil
}

// validateCalling checks the calling media and ICE options.
func (c *Config) validateCalling(check func(string, error)) {
	for _, a := range c.RTCListenAddrs {
		check("RTC_LISTEN_ADDRS", rtcListenAddr(a))
	}
	for _, name := range c.RTCInterfaces {
		check("RTC_INTERFACES", interfaceName(name))
	}
	if c.RTCPublicIP != "" {
		check("RTC_PUBLIC_IP", rtcPublicIP(c.RTCPublicIP, c.RTCListenAddrs))
	}
	lo, hi := c.RTCUDPPortMin, c.RTCUDPPortMax
	switch {
	case lo == 0 && hi == 0:
	case lo == 0 || hi == 0:
		check("RTC_UDP_PORT_MIN", errors.New("set both RTC_UDP_PORT_MIN and RTC_UDP_PORT_MAX, or neither"))
	case lo < 1024 || lo > 65535:
		check("RTC_UDP_PORT_MIN", fmt.Errorf("want a port between 1024 and 65535, got %d", lo))
	case hi < 1024 || hi > 65535:
		check("RTC_UDP_PORT_MAX", fmt.Errorf("want a port between 1024 and 65535, got %d", hi))
	case lo > hi:
		check("RTC_UDP_PORT_MAX", fmt.Errorf("must be at least RTC_UDP_PORT_MIN (%d), got %d", lo, hi))
	}
	switch p := c.RTCUDPPort; {
	case p == 0:
	case p < 1024 || p > 65535:
		check("RTC_UDP_PORT", fmt.Errorf("want a port between 1024 and 65535, got %d", p))
	case lo != 0 || hi != 0:
		check("RTC_UDP_PORT", errors.New("set RTC_UDP_PORT or RTC_UDP_PORT_MIN and RTC_UDP_PORT_MAX, not both"))
	}
	for _, u := range c.STUNURLs {
		check("STUN_URLS", iceURL(u, "stun", "stuns"))
	}
	for _, u := range c.TURNURLs {
		check("TURN_URLS", iceURL(u, "turn", "turns"))
	}
	if c.TURNTTL <= 0 {
		check("TURN_TTL", fmt.Errorf("must be positive, got %s", c.TURNTTL))
	}
}

// iceURL checks an ICE server URL (RFC 7064/7065: scheme:host[:port],
// TURN with an optional ?transport=udp|tcp).
func iceURL(raw string, schemes ...string) error {
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok || oneOf(strings.ToLower(scheme), schemes...) != nil {
		return fmt.Errorf("want a %s: URL, got %q", strings.Join(schemes, ": or "), raw)
	}
	hostport, query, _ := strings.Cut(rest, "?")
	if query != "" && query != "transport=udp" && query != "transport=tcp" {
		return fmt.Errorf("only ?transport=udp or ?transport=tcp may follow the host in %q", raw)
	}
	host := hostport
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("bad port in %q", raw)
		}
		host = h
	}
	if host == "" || strings.ContainsAny(host, "/@ ") {
		return fmt.Errorf("want scheme:host[:port], got %q", raw)
	}
	return nil
}

// rtcListenAddr checks one RTC_LISTEN_ADDRS entry: an IP address ICE can
// gather on (whether the host has it is checked when the engine starts).
func rtcListenAddr(s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return fmt.Errorf("want IP addresses such as 10.0.0.5 or 127.0.0.1, got %q", s)
	}
	switch a = a.Unmap(); {
	case a.IsUnspecified():
		return fmt.Errorf("%s means every address; leave RTC_LISTEN_ADDRS empty for that", a)
	case a == netip.IPv6Loopback():
		return errors.New("::1 cannot carry ICE (no IPv6 loopback candidate is gathered); use 127.0.0.1")
	case a.Is6() && a.IsLinkLocalUnicast():
		return fmt.Errorf("%s is link-local, which ICE does not announce", a)
	case a.IsMulticast():
		return fmt.Errorf("%s is a multicast address", a)
	}
	return nil
}

// interfaceName checks one RTC_INTERFACES entry as Linux names
// interfaces: 1 to 15 bytes, no slash or white space.
func interfaceName(s string) error {
	if s == "" || len(s) > 15 || strings.ContainsAny(s, "/ \t") {
		return fmt.Errorf("want interface names such as eth0, got %q", s)
	}
	return nil
}

// rtcPublicIP checks RTC_PUBLIC_IP, and that some listen address is of
// its family: only that family is gathered, so nothing would be announced.
func rtcPublicIP(s string, listen []string) error {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return fmt.Errorf("want an IP address, got %q", s)
	}
	a = a.Unmap()
	if a.IsUnspecified() || a.IsMulticast() {
		return fmt.Errorf("want the address peers reach, got %s", a)
	}
	if len(listen) == 0 {
		return nil
	}
	for _, l := range listen {
		if la, err := netip.ParseAddr(l); err == nil && la.Unmap().Is4() == a.Is4() {
			return nil
		}
	}
	fam := "IPv6"
	if a.Is4() {
		fam = "IPv4"
	}
	return fmt.Errorf("%s is %s but RTC_LISTEN_ADDRS has no %s address to announce it for", a, fam, fam)
}
