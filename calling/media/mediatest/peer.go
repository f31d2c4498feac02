// Package mediatest provides in-process WebRTC peers that play the
// platform or an agent's browser against the media engine in tests and
// benchmarks: they offer or answer on loopback, send Opus and RFC 4733
// DTMF, and record every RTP packet they receive.
package mediatest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	_ "embed"

	"github.com/pion/ice/v4"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media/oggreader"

	"switchboard/calling/media"
	"switchboard/calling/media/internal/rtptrack"
)

// ToneOgg is a 1 s 440 Hz tone as Ogg/Opus, 48 kHz mono, 20 ms pages
// (what calling/audio produces).
//
//go:embed testdata/tone.ogg
var ToneOgg []byte

// TB is the part of testing.TB a Peer needs; a benchmark program can
// implement it with log.Fatalf.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Packet is one RTP packet a Peer received.
type Packet struct {
	SequenceNumber uint16
	Timestamp      uint32
	PayloadType    uint8
	Marker         bool
	Payload        []byte
	At             time.Time
}

// Peer is a loopback WebRTC endpoint with one Opus track each way.
type Peer struct {
	tb    TB
	pc    *webrtc.PeerConnection
	track *rtptrack.Track
	link  *cuttableConn

	connected chan struct{}
	closeOnce sync.Once
	// lifeMu guards closed and wg.Add against Close's wg.Wait.
	lifeMu sync.Mutex
	closed bool
	wg     sync.WaitGroup

	sendMu sync.Mutex
	seq    uint16
	ts     uint32
	lastAt time.Time

	mu       sync.Mutex
	received []Packet
	notify   chan struct{}
	onPacket func(Packet)
}

// Options tune a Peer.
type Options struct {
	// DTMFClock is the telephone-event clock offered: 8000 (default, as
	// the platform does) or 48000 (as browsers add).
	DTMFClock uint32
	// OnPacket, if set, sees each received packet on the receive goroutine.
	OnPacket func(Packet)
	// Cuttable runs the peer on its own UDP socket so that Cut can make it
	// vanish from the network (to test ICE failure).
	Cuttable bool
	// Reachable, if set, keeps only the remote candidates whose address it
	// accepts: a platform or browser that can reach the server only at
	// some of its addresses (for example loopback only).
	Reachable func(net.IP) bool
}

// NewPeer makes a Peer closed at the end of the test.
func NewPeer(tb TB, opts ...Options) *Peer {
	tb.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	p, err := New(o)
	if err != nil {
		tb.Fatalf("mediatest: %v", err)
	}
	p.tb = tb
	tb.Cleanup(p.Close)
	return p
}

// New makes a Peer without a test (the caller closes it).
func New(o Options) (*Peer, error) {
	var link *cuttableConn
	if o.Cuttable {
		conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, err
		}
		link = &cuttableConn{PacketConn: conn}
	}
	api, err := newAPI(o, link)
	if err != nil {
		return nil, err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	p := &Peer{
		pc: pc, link: link, connected: make(chan struct{}), notify: make(chan struct{}, 1),
		onPacket: o.OnPacket, seq: uint16(rand.Uint32()), ts: rand.Uint32(),
		track: rtptrack.New(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2,
			SDPFmtpLine: "minptime=10;useinbandfec=1"}, "audio", "mediatest"),
	}
	if _, err := pc.AddTrack(p.track); err != nil {
		_ = pc.Close()
		return nil, err
	}
	var once sync.Once
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateConnected {
			once.Do(func() { close(p.connected) })
		}
	})
	pc.OnTrack(func(t *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		p.lifeMu.Lock()
		defer p.lifeMu.Unlock()
		if p.closed {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.receive(t)
		}()
	})
	return p, nil
}

func newAPI(o Options, link *cuttableConn) (*webrtc.API, error) {
	dtmfClock := o.DTMFClock
	if dtmfClock == 0 {
		dtmfClock = 8000
	}
	m := &webrtc.MediaEngine{}
	codecs := []webrtc.RTPCodecParameters{
		{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2,
			SDPFmtpLine: "minptime=10;useinbandfec=1"}, PayloadType: 111},
		{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: rtptrack.MimeTypeTelephoneEvent, ClockRate: dtmfClock,
			SDPFmtpLine: "0-16"}, PayloadType: 126},
	}
	for _, c := range codecs {
		if err := m.RegisterCodec(c, webrtc.RTPCodecTypeAudio); err != nil {
			return nil, err
		}
	}
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	if o.Reachable != nil {
		se.SetRemoteIPFilter(o.Reachable)
	}
	if link != nil {
		link.mux = ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: link})
		se.SetICEUDPMux(link.mux)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(se)), nil
}

func (p *Peer) fatal(err error) {
	if p.tb == nil {
		panic(err)
	}
	p.tb.Helper()
	p.tb.Fatalf("mediatest: %v", err)
}

// Offer returns the Peer's complete SDP offer.
func (p *Peer) Offer() string {
	s, err := p.CreateOffer()
	if err != nil {
		p.fatal(err)
	}
	return s
}

// CreateOffer is Offer returning its error.
func (p *Peer) CreateOffer() (string, error) {
	offer, err := p.pc.CreateOffer(nil)
	if err != nil {
		return "", err
	}
	return p.setLocal(offer)
}

// Answer answers a remote offer with a complete SDP answer.
func (p *Peer) Answer(offer string) string {
	s, err := p.CreateAnswer(offer)
	if err != nil {
		p.fatal(err)
	}
	return s
}

// CreateAnswer is Answer returning its error.
func (p *Peer) CreateAnswer(offer string) (string, error) {
	if err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "", err
	}
	answer, err := p.pc.CreateAnswer(nil)
	if err != nil {
		return "", err
	}
	return p.setLocal(answer)
}

// SetAnswer completes the Peer's offer.
func (p *Peer) SetAnswer(answer string) {
	if err := p.ApplyAnswer(answer); err != nil {
		p.fatal(err)
	}
}

// ApplyAnswer is SetAnswer returning its error.
func (p *Peer) ApplyAnswer(answer string) error {
	return p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer})
}

func (p *Peer) setLocal(desc webrtc.SessionDescription) (string, error) {
	gathered := webrtc.GatheringCompletePromise(p.pc)
	if err := p.pc.SetLocalDescription(desc); err != nil {
		return "", err
	}
	select {
	case <-gathered:
	case <-time.After(10 * time.Second):
		return "", errors.New("ICE gathering timed out")
	}
	return p.pc.LocalDescription().SDP, nil
}

// Connected is closed when ICE and DTLS are connected.
func (p *Peer) Connected() <-chan struct{} { return p.connected }

// WaitConnected waits until the Peer is connected or ctx ends.
func (p *Peer) WaitConnected(ctx context.Context) error {
	select {
	case <-p.connected:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mediatest: not connected: %w", ctx.Err())
	}
}

// TonePackets returns the Opus packets of ToneOgg (51 packets of 20 ms).
func TonePackets() [][]byte {
	r, _, err := oggreader.NewWith(bytes.NewReader(ToneOgg))
	if err != nil {
		panic(err)
	}
	var packets [][]byte
	for {
		payload, page, err := r.ParseNextPage()
		if err != nil {
			return packets
		}
		if kind, ok := page.HeaderType(payload); (ok && kind == oggreader.HeaderOpusTags) || len(payload) == 0 {
			continue
		}
		packets = append(packets, payload)
	}
}

// SendAudio sends n 20 ms Opus packets of the tone (cycled), paced in
// real time; it returns when they are sent or ctx ends.
func (p *Peer) SendAudio(ctx context.Context, n int) error {
	tone := TonePackets()
	start := time.Now()
	for i := range n {
		if d := time.Until(start.Add(time.Duration(i) * 20 * time.Millisecond)); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := p.SendPayload(tone[i%len(tone)], 960); err != nil {
			return err
		}
	}
	return nil
}

// SendPayload sends one Opus packet lasting samples (48 kHz) now.
func (p *Peer) SendPayload(payload []byte, samples uint32) error {
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	p.seq++
	h := rtp.Header{Version: 2, SequenceNumber: p.seq, Timestamp: p.ts}
	p.ts += samples
	p.lastAt = time.Now()
	return p.track.WriteAudio(&h, payload)
}

// SendDTMF presses digit as RFC 4733 does: a start packet, updates every
// 20 ms for 100 ms, and the end packet three times, all with the event's
// timestamp. It holds the audio stream for the press.
func (p *Peer) SendDTMF(ctx context.Context, digit rune) error {
	event, ok := media.DTMFEvent(digit)
	if !ok {
		return fmt.Errorf("mediatest: %q is not a DTMF key", digit)
	}
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	ts := p.ts
	send := func(duration uint16, end, marker bool) error {
		p.seq++
		h := rtp.Header{Version: 2, SequenceNumber: p.seq, Timestamp: ts, Marker: marker}
		flags := byte(10) // volume -10 dBm0
		if end {
			flags |= 0x80
		}
		return p.track.WriteEvent(&h, []byte{event, flags, byte(duration >> 8), byte(duration)})
	}
	const step = 160 // 20 ms at 8 kHz; the exact clock does not matter here
	for i := range 5 {
		if err := send(uint16(step*(i+1)), false, i == 0); err != nil {
			return err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for range 3 {
		if err := send(step*6, true, false); err != nil {
			return err
		}
	}
	p.ts += 6 * 960
	return nil
}

func (p *Peer) receive(t *webrtc.TrackRemote) {
	buf := make([]byte, 1500)
	for {
		n, _, err := t.Read(buf)
		if err != nil {
			return
		}
		var pkt rtp.Packet
		if pkt.Unmarshal(append([]byte(nil), buf[:n]...)) != nil {
			continue
		}
		got := Packet{SequenceNumber: pkt.SequenceNumber, Timestamp: pkt.Timestamp, PayloadType: pkt.PayloadType,
			Marker: pkt.Marker, Payload: pkt.Payload, At: time.Now()}
		if p.onPacket != nil {
			p.onPacket(got)
		}
		p.mu.Lock()
		p.received = append(p.received, got)
		p.mu.Unlock()
		select {
		case p.notify <- struct{}{}:
		default:
		}
	}
}

// Received returns a copy of every packet received so far.
func (p *Peer) Received() []Packet {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Packet(nil), p.received...)
}

// Reset forgets the packets received so far.
func (p *Peer) Reset() {
	p.mu.Lock()
	p.received = nil
	p.mu.Unlock()
}

// WaitReceived waits until at least n packets have been received.
func (p *Peer) WaitReceived(ctx context.Context, n int) error {
	for {
		p.mu.Lock()
		got := len(p.received)
		p.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-p.notify:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("mediatest: received %d of %d packets: %w", got, n, ctx.Err())
		}
	}
}

// Cut makes a Cuttable peer vanish without a goodbye: from now on it
// neither sends nor receives a datagram, as when a browser loses its
// network. It panics for a peer made without Options.Cuttable.
func (p *Peer) Cut() {
	p.link.cut.Store(true)
}

// cuttableConn is a UDP socket that can stop carrying datagrams.
type cuttableConn struct {
	net.PacketConn
	cut atomic.Bool
	mux *ice.UDPMuxDefault
}

func (c *cuttableConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	if c.cut.Load() {
		return len(b), nil
	}
	return c.PacketConn.WriteTo(b, addr)
}

func (c *cuttableConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, addr, err := c.PacketConn.ReadFrom(b)
		if err != nil || !c.cut.Load() {
			return n, addr, err
		}
	}
}

// Close closes the PeerConnection and waits for the receive goroutine.
func (p *Peer) Close() {
	p.closeOnce.Do(func() {
		p.lifeMu.Lock()
		p.closed = true
		p.lifeMu.Unlock()
		_ = p.pc.Close()
		p.wg.Wait()
		if p.link != nil {
			_ = p.link.mux.Close() // closes the socket too
		}
	})
}
