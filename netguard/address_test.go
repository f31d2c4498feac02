package netguard_test

import (
	"errors"
	"net/netip"
	"testing"

	"switchboard/netguard"
)

func TestCheckIP(t *testing.T) {
	blocked := []struct {
		addr   string
		reason string
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"::1", "loopback"},
		{"10.0.0.5", "private network"},
		{"172.16.0.1", "private network"},
		{"172.31.255.255", "private network"},
		{"192.168.1.1", "private network"},
		{"fc00::1", "private network"},
		{"fd12:3456:789a::1", "private network"},
		{"fec0::1", "private network"},
		{"169.254.0.1", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"169.254.169.254", "cloud metadata service"},
		{"169.254.170.2", "cloud metadata service"},
		{"fd00:ec2::254", "cloud metadata service"},
		{"100.100.100.200", "cloud metadata service"},
		{"168.63.129.16", "cloud metadata service"},
		{"192.0.0.192", "cloud metadata service"},
		{"100.64.0.1", "shared address space"},
		{"100.127.255.254", "shared address space"},
		{"0.0.0.0", "unspecified address"},
		{"::", "unspecified address"},
		{"0.1.2.3", "\"this\" network"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved address"},
		{"198.18.0.1", "reserved address"},
		{"192.0.0.8", "reserved address"},
		// IPv4-mapped IPv6 is judged by its IPv4 address.
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.5", "private network"},
		{"::ffff:169.254.169.254", "cloud metadata service"},
		{"::ffff:0.0.0.0", "unspecified address"},
		// So are NAT64 and 6to4 addresses.
		{"64:ff9b::7f00:1", "loopback"},
		{"64:ff9b::a9fe:a9fe", "cloud metadata service"},
		{"2002:c0a8:0101::1", "private network"},
		{"64:ff9b:1::1", "private network"},
		{"::127.0.0.1", "reserved address"},
		{"100::1", "reserved address"},
		{"4000::1", "reserved address"},
	}
	for _, tc := range blocked {
		t.Run("Blocked/"+tc.addr, func(t *testing.T) {
			ip := netip.MustParseAddr(tc.addr)
			err := netguard.CheckIP(ip)
			if !errors.Is(err, netguard.ErrBlockedAddress) {
				t.Fatalf("CheckIP(%s) = %v, want ErrBlockedAddress", tc.addr, err)
			}
			var be *netguard.BlockedAddressError
			if !errors.As(err, &be) {
				t.Fatalf("CheckIP(%s) = %T, want *BlockedAddressError", tc.addr, err)
			}
			if be.Reason != tc.reason {
				t.Errorf("reason = %q, want %q", be.Reason, tc.reason)
			}
			if be.Addr != ip {
				t.Errorf("Addr = %s, want %s", be.Addr, ip)
			}
		})
	}

	allowed := []string{
		"8.8.8.8",
		"1.1.1.1",
		"93.184.215.14",
		"203.0.113.10",
		"172.32.0.1",    // just past 172.16.0.0/12
		"100.128.0.1",   // just past 100.64.0.0/10
		"169.255.0.1",   // just past 169.254.0.0/16
		"11.0.0.1",      // just past 10.0.0.0/8
		"223.255.255.1", // just below multicast
		"2606:4700:4700::1111",
		"2001:4860:4860::8888",
		"::ffff:8.8.8.8",
		"64:ff9b::808:808", // NAT64 of 8.8.8.8
		"2002:0808:0808::1",
	}
	for _, addr := range allowed {
		t.Run("Allowed/"+addr, func(t *testing.T) {
			if err := netguard.CheckIP(netip.MustParseAddr(addr)); err != nil {
				t.Fatalf("CheckIP(%s) = %v, want nil", addr, err)
			}
		})
	}

	t.Run("ErrInvalidAddr", func(t *testing.T) {
		if err := netguard.CheckIP(netip.Addr{}); !errors.Is(err, netguard.ErrBlockedAddress) {
			t.Fatalf("CheckIP(zero) = %v, want ErrBlockedAddress", err)
		}
	})
}

func TestBlockedAddressErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *netguard.BlockedAddressError
		want string
	}{
		{
			name: "Address",
			err:  &netguard.BlockedAddressError{Addr: netip.MustParseAddr("10.0.0.5"), Reason: "private network"},
			want: "destination address 10.0.0.5 is not allowed (private network)",
		},
		{
			name: "HostAndAddress",
			err:  &netguard.BlockedAddressError{Addr: netip.MustParseAddr("127.0.0.1"), Host: "rebind.example", Reason: "loopback"},
			want: "destination rebind.example resolves to 127.0.0.1, which is not allowed (loopback)",
		},
		{
			name: "Host",
			err:  &netguard.BlockedAddressError{Host: "localhost", Reason: "loopback"},
			want: "destination localhost is not allowed (loopback)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}
