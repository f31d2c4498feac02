package netguard

import "net/netip"

// Reasons shown to users; kept short because they end an error message.
const (
	reasonLoopback    = "loopback"
	reasonPrivate     = "private network"
	reasonLinkLocal   = "link-local"
	reasonCGNAT       = "shared address space"
	reasonUnspecified = "unspecified address"
	reasonThisNetwork = "\"this\" network"
	reasonMulticast   = "multicast"
	reasonBroadcast   = "broadcast"
	reasonReserved    = "reserved address"
	reasonMetadata    = "cloud metadata service"
	reasonInvalid     = "not an IP address"
)

// metadataAddrs are the instance metadata and platform endpoints of the big
// clouds. Most already sit in a blocked range; they are listed so the message
// says what they are, and so the public ones (Azure's wire server) are
// refused at all.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"):   true, // Azure wire server (a public address)
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
}

type blockedRange struct {
	prefix netip.Prefix
	reason string
}

// blockedRanges are checked in order, so more specific prefixes come first.
// IPv4-mapped IPv6 addresses are unmapped before the check, and IPv6 forms
// that embed an IPv4 address (NAT64, 6to4) are judged by that address.
var blockedRanges = []blockedRange{
	// IPv4 (RFC 6890 and the IANA special-purpose registry).
	{netip.MustParsePrefix("0.0.0.0/32"), reasonUnspecified},
	{netip.MustParsePrefix("0.0.0.0/8"), reasonThisNetwork},
	{netip.MustParsePrefix("10.0.0.0/8"), reasonPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), reasonCGNAT},
	{netip.MustParsePrefix("127.0.0.0/8"), reasonLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), reasonLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), reasonPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), reasonReserved},
	{netip.MustParsePrefix("192.168.0.0/16"), reasonPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), reasonReserved},
	{netip.MustParsePrefix("224.0.0.0/4"), reasonMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), reasonBroadcast},
	{netip.MustParsePrefix("240.0.0.0/4"), reasonReserved},

	// IPv6.
	{netip.MustParsePrefix("::/128"), reasonUnspecified},
	{netip.MustParsePrefix("::1/128"), reasonLoopback},
	{netip.MustParsePrefix("::/96"), reasonReserved}, // deprecated IPv4-compatible form
	{netip.MustParsePrefix("64:ff9b:1::/48"), reasonPrivate},
	{netip.MustParsePrefix("100::/64"), reasonReserved},
	{netip.MustParsePrefix("fc00::/7"), reasonPrivate},
	{netip.MustParsePrefix("fe80::/10"), reasonLinkLocal},
	{netip.MustParsePrefix("fec0::/10"), reasonPrivate}, // deprecated site-local
	{netip.MustParsePrefix("ff00::/8"), reasonMulticast},
}

var (
	nat64Prefix   = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	globalUnicast = netip.MustParsePrefix("2000::/3")
)

// CheckIP returns a *BlockedAddressError when ip is not a public unicast
// address, and nil when a request on a user's behalf may connect to it.
func CheckIP(ip netip.Addr) error {
	if reason := blockedReason(ip); reason != "" {
		return &BlockedAddressError{Addr: ip, Reason: reason}
	}
	return nil
}

func blockedReason(ip netip.Addr) string {
	if !ip.IsValid() {
		return reasonInvalid
	}
	ip = ip.WithZone("").Unmap()
	if metadataAddrs[ip] {
		return reasonMetadata
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64Prefix.Contains(ip):
			return blockedReason(netip.AddrFrom4([4]byte(b[12:16])))
		case sixToFour.Contains(ip):
			return blockedReason(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	// Outside 2000::/3 nothing is assigned for global unicast.
	if ip.Is6() && !globalUnicast.Contains(ip) {
		return reasonReserved
	}
	return ""
}
