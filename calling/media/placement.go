package media

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// placement is where the engine gathers candidates and what it announces,
// checked against this host's interfaces when the engine starts.
type placement struct {
	listen     []netip.Addr // empty: every address of the chosen interfaces
	interfaces []string     // empty: every interface
	public     netip.Addr   // invalid: announce the local addresses
	// gathered is what a leg gathers on with this placement today (the
	// host's interfaces may change later; pion enumerates them per leg).
	gathered []netip.Addr
}

// placementOf parses cfg's listen addresses, interfaces and public IP, and
// checks them against this host.
func placementOf(cfg Config) (placement, error) {
	p, err := parsePlacement(cfg)
	if err != nil {
		return p, err
	}
	return p, p.survey()
}

func parsePlacement(cfg Config) (placement, error) {
	var p placement
	for _, s := range cfg.ListenAddrs {
		a, err := listenAddr(s)
		if err != nil {
			return p, err
		}
		p.listen = append(p.listen, a)
	}
	p.interfaces = cfg.Interfaces
	if cfg.PublicIP != "" {
		a, err := netip.ParseAddr(cfg.PublicIP)
		if err != nil {
			return p, fmt.Errorf("media: public IP %q is not an IP address", cfg.PublicIP)
		}
		p.public = a.Unmap()
	}
	return p, p.checkFamilies()
}

// survey checks the placement against the host's interfaces as they are
// now and notes the addresses a leg gathers on.
func (p *placement) survey() error {
	for _, name := range p.interfaces {
		if _, err := net.InterfaceByName(name); err != nil {
			return fmt.Errorf("media: interface %q: no network interface of that name on this host", name)
		}
	}
	host, err := hostAddrs()
	if err != nil {
		return fmt.Errorf("media: listing this host's addresses: %w", err)
	}
	for _, a := range p.listen {
		if !slices.ContainsFunc(host, func(h ifaceAddr) bool { return h.addr == a }) {
			return fmt.Errorf("media: listen address %s is not an address of this host (on an interface that is up)", a)
		}
	}
	for _, h := range host {
		if p.keeps(h) {
			p.gathered = append(p.gathered, h.addr)
		}
	}
	if len(p.gathered) == 0 && p.restricted() {
		// Unplaced, a host without a network yet still starts (calls
		// then fail to connect, as before); a placement that leaves
		// nothing is a mistake.
		return errors.New("media: no address to gather on: " + p.String())
	}
	return nil
}

// listenAddr parses one listen address. The unspecified address, IPv6
// loopback (pion gathers no ::1 candidate) and link-local IPv6 (it needs a
// zone and pion drops it) cannot carry a call.
func listenAddr(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return a, fmt.Errorf("media: listen address %q is not an IP address", s)
	}
	a = a.Unmap()
	switch {
	case a.IsUnspecified():
		return a, fmt.Errorf("media: listen address %s means every address: leave the listen addresses empty instead", a)
	case a == netip.IPv6Loopback():
		return a, errors.New("media: listen address ::1: ICE gathers no IPv6 loopback candidate; use 127.0.0.1")
	case a.Is6() && a.IsLinkLocalUnicast():
		return a, fmt.Errorf("media: listen address %s is link-local, which ICE does not announce", a)
	case a.IsMulticast():
		return a, fmt.Errorf("media: listen address %s is a multicast address", a)
	}
	return a, nil
}

// checkFamilies refuses a public IP of a family no listen address has:
// nothing would be announced.
func (p placement) checkFamilies() error {
	if !p.public.IsValid() || len(p.listen) == 0 {
		return nil
	}
	if !slices.ContainsFunc(p.listen, func(a netip.Addr) bool { return a.Is4() == p.public.Is4() }) {
		return fmt.Errorf("media: public IP %s is %s but there is no %s listen address to announce it for",
			p.public, family(p.public), family(p.public))
	}
	return nil
}

func family(a netip.Addr) string {
	if a.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// restricted reports whether the operator placed the engine: then it
// gathers on nothing else, mDNS (a wildcard socket on every interface)
// included.
func (p placement) restricted() bool {
	return len(p.listen) > 0 || len(p.interfaces) > 0 || p.public.IsValid()
}

// loopback reports whether loopback candidates are wanted: only when a
// loopback address or interface is chosen.
func (p placement) loopback() bool {
	if slices.ContainsFunc(p.listen, netip.Addr.IsLoopback) {
		return true
	}
	for _, name := range p.interfaces {
		if iface, err := net.InterfaceByName(name); err == nil && iface.Flags&net.FlagLoopback != 0 {
			return true
		}
	}
	return false
}

// networkTypes are the UDP families gathered: the public IP's alone when
// one is set (so no address of the other family is announced), else those
// of the listen addresses, else both. Nil (pion's default) when the engine
// is not placed.
func (p placement) networkTypes() []webrtc.NetworkType {
	if !p.restricted() {
		return nil
	}
	var v4, v6 bool
	switch {
	case p.public.IsValid():
		v4, v6 = p.public.Is4(), p.public.Is6()
	case len(p.listen) > 0:
		v4 = slices.ContainsFunc(p.listen, netip.Addr.Is4)
		v6 = slices.ContainsFunc(p.listen, netip.Addr.Is6)
	default:
		v4, v6 = true, true
	}
	var types []webrtc.NetworkType
	if v4 {
		types = append(types, webrtc.NetworkTypeUDP4)
	}
	if v6 {
		types = append(types, webrtc.NetworkTypeUDP6)
	}
	return types
}

// keeps reports whether a leg gathers on the host address h: the same
// rules pion applies with the settings apply.
func (p placement) keeps(h ifaceAddr) bool {
	if (h.loopbackIface || h.addr.IsLoopback()) && !p.loopback() {
		return false
	}
	if len(p.interfaces) > 0 && !slices.Contains(p.interfaces, h.iface) {
		return false
	}
	if len(p.listen) > 0 && !slices.Contains(p.listen, h.addr) {
		return false
	}
	if types := p.networkTypes(); types != nil {
		want := webrtc.NetworkTypeUDP6
		if h.addr.Is4() {
			want = webrtc.NetworkTypeUDP4
		}
		if !slices.Contains(types, want) {
			return false
		}
	}
	return !h.addr.Is6() || ice6(h.addr)
}

// ice6 reports whether ICE announces the IPv6 address a (not link-local,
// not IPv4-compatible or site-local, RFC 8445 5.1.1.1).
func ice6(a netip.Addr) bool {
	b := a.As16()
	if a.IsLinkLocalUnicast() || (b[0] == 0xfe && b[1]&0xc0 == 0xc0) {
		return false
	}
	for _, x := range b[:12] {
		if x != 0 {
			return true
		}
	}
	return false
}

// ipFilter keeps the listen addresses (nil: any).
func (p placement) ipFilter() func(net.IP) bool {
	if len(p.listen) == 0 {
		return nil
	}
	return func(ip net.IP) bool {
		a, ok := netip.AddrFromSlice(ip)
		return ok && slices.Contains(p.listen, a.Unmap())
	}
}

// interfaceFilter keeps the chosen interfaces (nil: any).
func (p placement) interfaceFilter() func(string) bool {
	if len(p.interfaces) == 0 {
		return nil
	}
	return func(name string) bool { return slices.Contains(p.interfaces, name) }
}

// apply sets the placement on the pion settings.
func (p placement) apply(se *webrtc.SettingEngine) error {
	if !p.restricted() {
		return nil
	}
	se.SetNetworkTypes(p.networkTypes())
	se.SetIncludeLoopbackCandidate(p.loopback())
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if f := p.ipFilter(); f != nil {
		se.SetIPFilter(f)
	}
	if f := p.interfaceFilter(); f != nil {
		se.SetInterfaceFilter(f)
	}
	if p.public.IsValid() {
		err := se.SetICEAddressRewriteRules(webrtc.ICEAddressRewriteRule{
			External: []string{p.public.String()}, AsCandidateType: webrtc.ICECandidateTypeHost,
			Mode: webrtc.ICEAddressRewriteReplace,
		})
		if err != nil {
			return fmt.Errorf("media: public IP: %w", err)
		}
	}
	return nil
}

// String describes the placement for errors and the startup log.
func (p placement) String() string {
	var parts []string
	if len(p.listen) > 0 {
		parts = append(parts, "listen addresses "+joinAddrs(p.listen))
	}
	if len(p.interfaces) > 0 {
		parts = append(parts, "interfaces "+strings.Join(p.interfaces, ", "))
	}
	if p.public.IsValid() {
		parts = append(parts, "public IP "+p.public.String())
	}
	if len(parts) == 0 {
		return "every non-loopback address"
	}
	return strings.Join(parts, "; ")
}

func joinAddrs(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// ifaceAddr is one address of an up interface of this host.
type ifaceAddr struct {
	addr          netip.Addr
	iface         string
	loopbackIface bool
}

func hostAddrs() ([]ifaceAddr, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var out []ifaceAddr
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			prefix, err := netip.ParsePrefix(a.String())
			if err != nil {
				continue
			}
			out = append(out, ifaceAddr{addr: prefix.Addr().Unmap(), iface: iface.Name,
				loopbackIface: iface.Flags&net.FlagLoopback != 0})
		}
	}
	return out, nil
}

// udpMux binds port on every address the placement gathers on: the one
// socket per address that every leg shares.
func (p placement) udpMux(port int) (*ice.MultiUDPMuxDefault, error) {
	opts := []ice.UDPMuxFromPortOption{}
	if f := p.ipFilter(); f != nil {
		opts = append(opts, ice.UDPMuxFromPortWithIPFilter(f))
	}
	if f := p.interfaceFilter(); f != nil {
		opts = append(opts, ice.UDPMuxFromPortWithInterfaceFilter(f))
	}
	if p.loopback() {
		opts = append(opts, ice.UDPMuxFromPortWithLoopback())
	}
	if types := p.networkTypes(); types != nil {
		var networks []ice.NetworkType
		for _, t := range types {
			if t == webrtc.NetworkTypeUDP4 {
				networks = append(networks, ice.NetworkTypeUDP4)
			} else {
				networks = append(networks, ice.NetworkTypeUDP6)
			}
		}
		opts = append(opts, ice.UDPMuxFromPortWithNetworks(networks...))
	}
	mux, err := ice.NewMultiUDPMuxFromPort(port, opts...)
	if err != nil {
		return nil, fmt.Errorf("media: UDP port %d on %s: %w", port, joinAddrs(p.gathered), err)
	}
	return mux, nil
}
