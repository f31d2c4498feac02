package media_test

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"switchboard/calling/media"
	"switchboard/calling/media/mediatest"
)

// candidate is one a=candidate line of an SDP.
type candidate struct {
	network, address, port, kind string
}

func candidatesOf(sdp string) []candidate {
	var out []candidate
	for _, line := range strings.Split(sdp, "\r\n") {
		if !strings.HasPrefix(line, "a=candidate:") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		out = append(out, candidate{network: strings.ToLower(f[2]), address: f[4], port: f[5], kind: f[7]})
	}
	return out
}

// offerCandidates makes an offering leg on an engine of cfg and returns the
// candidates its offer announces.
func offerCandidates(t *testing.T, cfg media.Config) []candidate {
	t.Helper()
	e, err := media.NewEngine(cfg)
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	defer e.Close()
	leg, offer, err := e.Offer(testContext(t), media.LegOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer leg.Close()
	return candidatesOf(offer)
}

// TestPublicIPIsTheOnlyAddressAnnounced: behind a 1:1 NAT the engine
// announces RTC_PUBLIC_IP and nothing else: no address of the other IP
// family (an internal IPv6 address leaked past an IPv4 public address).
func TestPublicIPIsTheOnlyAddressAnnounced(t *testing.T) {
	cands := offerCandidates(t, media.Config{PublicIP: "203.0.113.7"})
	if len(cands) == 0 {
		t.Fatal("no candidate announced")
	}
	for _, c := range cands {
		if c.address != "203.0.113.7" || c.kind != "host" || c.network != "udp" {
			t.Errorf("candidate %+v: want only udp host 203.0.113.7", c)
		}
	}
}

// hostAddress returns an address of this host's first non-loopback,
// up interface of the given family ("" when there is none).
func hostAddress(t *testing.T, v4 bool) string {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := iface.Addrs()
		for _, a := range addrs {
			p, err := netip.ParsePrefix(a.String())
			if err != nil || p.Addr().Is4() != v4 || p.Addr().IsLinkLocalUnicast() {
				continue
			}
			return p.Addr().String()
		}
	}
	return ""
}

// loopbackInterface is the name of this host's loopback interface.
func loopbackInterface(t *testing.T) string {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, iface := range ifaces {
		if iface.Flags&net.FlagLoopback != 0 {
			return iface.Name
		}
	}
	t.Skip("no loopback interface")
	return ""
}

// TestPlacementChoosesWhatIsAnnounced: the engine gathers on the listen
// addresses or interfaces it is given, loopback included when chosen, and
// announces the public IP alone when one is set.
func TestPlacementChoosesWhatIsAnnounced(t *testing.T) {
	lo := loopbackInterface(t)
	tests := []struct {
		name string
		cfg  media.Config
		want []string // every candidate's address is one of these
	}{
		{"ListenLoopback", media.Config{ListenAddrs: []string{"127.0.0.1"}}, []string{"127.0.0.1"}},
		{"InterfaceLoopback", media.Config{Interfaces: []string{lo}}, []string{"127.0.0.1"}},
		{"LoopbackBehindPublicIP", media.Config{ListenAddrs: []string{"127.0.0.1"}, PublicIP: "203.0.113.7"}, []string{"203.0.113.7"}},
		{"PublicIPv4", media.Config{PublicIP: "203.0.113.7"}, []string{"203.0.113.7"}},
		{"OnePortBehindPublicIP", media.Config{ListenAddrs: []string{"127.0.0.1"}, PublicIP: "203.0.113.7", UDPPort: uint16(freeUDPPort(t))},
			[]string{"203.0.113.7"}},
	}
	if v4 := hostAddress(t, true); v4 != "" {
		tests = append(tests, struct {
			name string
			cfg  media.Config
			want []string
		}{"OneOfSeveral", media.Config{ListenAddrs: []string{v4}}, []string{v4}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cands := offerCandidates(t, tt.cfg)
			if len(cands) == 0 {
				t.Fatal("no candidate announced")
			}
			for _, c := range cands {
				if !slices.Contains(tt.want, c.address) || c.kind != "host" || c.network != "udp" {
					t.Errorf("candidate %+v: want udp host candidates on %v only", c, tt.want)
				}
			}
		})
	}
}

// TestPlacementRefusesWhatCannotWork: a placement that would announce
// nothing reachable is refused when the engine starts, not discovered on
// the first call.
func TestPlacementRefusesWhatCannotWork(t *testing.T) {
	lo := loopbackInterface(t)
	tests := []struct {
		name, want string
		cfg        media.Config
	}{
		{"ListenAddrNotAnIP", "not an IP address", media.Config{ListenAddrs: []string{"localhost"}}},
		{"ListenAddrNotOnHost", "not an address of this host", media.Config{ListenAddrs: []string{"198.51.100.77"}}},
		{"ListenAddrUnspecified", "every address", media.Config{ListenAddrs: []string{"0.0.0.0"}}},
		{"ListenIPv6Loopback", "::1", media.Config{ListenAddrs: []string{"::1"}}},
		{"UnknownInterface", "no network interface", media.Config{Interfaces: []string{"nosuch0"}}},
		{"PublicIPOtherFamily", "no IPv6 listen address", media.Config{ListenAddrs: []string{"127.0.0.1"}, PublicIP: "2001:db8::7"}},
		{"NothingLeft", "no address to gather on", media.Config{Interfaces: []string{lo}, PublicIP: "2001:db8::7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := media.NewEngine(tt.cfg)
			if err == nil {
				_ = e.Close()
				t.Fatalf("NewEngine(%+v) = nil error, want %q", tt.cfg, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewEngine(%+v) = %v, want %q", tt.cfg, err, tt.want)
			}
		})
	}
}

// TestLoopbackOnlyPeersReachTheEngine: platforms that reach this host only
// at its loopback address (a namespace or container whose one reachable
// address is 127.0.0.1) get media both ways once the engine listens there.
func TestLoopbackOnlyPeersReachTheEngine(t *testing.T) {
	e, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if got, want := e.Placement(), "127.0.0.1 (listen addresses 127.0.0.1)"; got != want {
		t.Errorf("Placement() = %q, want %q", got, want)
	}
	loopbackOnly := mediatest.Options{Reachable: func(ip net.IP) bool { return ip.IsLoopback() }}
	a, b := mediatest.NewPeer(t, loopbackOnly), mediatest.NewPeer(t, loopbackOnly)
	bridge := media.Bridge(answerLeg(t, e, a, media.LegOptions{}), answerLeg(t, e, b, media.LegOptions{}))
	defer bridge.Stop()
	ctx := testContext(t)
	for _, dir := range []struct{ from, to *mediatest.Peer }{{a, b}, {b, a}} {
		go func() { _ = dir.from.SendAudio(ctx, 25) }()
		if err := dir.to.WaitReceived(ctx, 20); err != nil {
			t.Fatalf("audio across the engine: %v", err)
		}
	}
}

// freeUDPPort returns a UDP port nobody holds on 127.0.0.1 now.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// TestOneUDPPortForEveryCall: with RTC_UDP_PORT every leg is reached at
// that one port (one firewall rule), and calls on it carry audio.
func TestOneUDPPortForEveryCall(t *testing.T) {
	port := freeUDPPort(t)
	e, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}, UDPPort: uint16(port)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	ctx := testContext(t)
	peers := []*mediatest.Peer{mediatest.NewPeer(t), mediatest.NewPeer(t)}
	legs := make([]*media.Leg, len(peers))
	for i, p := range peers {
		leg, answer, err := e.Answer(ctx, p.Offer(), media.LegOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cands := candidatesOf(answer)
		if len(cands) == 0 {
			t.Fatal("no candidate announced")
		}
		for _, c := range cands {
			if c.address != "127.0.0.1" || c.port != strconv.Itoa(port) {
				t.Errorf("leg %d announces %+v, want 127.0.0.1:%d", i, c, port)
			}
		}
		p.SetAnswer(answer)
		waitConnected(t, leg, p)
		legs[i] = leg
	}
	bridge := media.Bridge(legs[0], legs[1])
	defer bridge.Stop()
	for _, dir := range [][2]*mediatest.Peer{{peers[0], peers[1]}, {peers[1], peers[0]}} {
		go func() { _ = dir[0].SendAudio(ctx, 25) }()
		if err := dir[1].WaitReceived(ctx, 20); err != nil {
			t.Fatalf("audio through the one port: %v", err)
		}
	}
}

// TestOneUDPPortRefusals: the port must be free, and a port range cannot
// be set beside it.
func TestOneUDPPortRefusals(t *testing.T) {
	busy, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := uint16(busy.LocalAddr().(*net.UDPAddr).Port)
	tests := []struct {
		name, want string
		cfg        media.Config
	}{
		{"PortTaken", "UDP port", media.Config{ListenAddrs: []string{"127.0.0.1"}, UDPPort: busyPort}},
		{"WithRange", "not both", media.Config{UDPPort: 40000, PortMin: 40000, PortMax: 40100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := media.NewEngine(tt.cfg)
			if err == nil {
				_ = e.Close()
				t.Fatalf("NewEngine(%+v) = nil error, want %q", tt.cfg, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewEngine(%+v) = %v, want %q", tt.cfg, err, tt.want)
			}
		})
	}
}
