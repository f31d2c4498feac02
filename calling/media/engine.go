package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/webrtc/v4"
)

// ErrClosed is returned when the engine or leg is already closed.
var ErrClosed = errors.New("media: closed")

// Config configures the engine's ICE transport. ListenAddrs, Interfaces
// and PublicIP place it; with none of them it gathers on every
// non-loopback address of the host and announces them.
type Config struct {
	// ListenAddrs are the only local IP addresses candidates are gathered
	// on (RTC_LISTEN_ADDRS); a loopback address counts when listed. Each
	// must be an address of this host when the engine starts.
	ListenAddrs []string
	// Interfaces are the only network interfaces gathered on
	// (RTC_INTERFACES), loopback included when named.
	Interfaces []string
	// PublicIP, when set, is the one address announced (RTC_PUBLIC_IP):
	// every host candidate carries it instead of the local address (NAT
	// 1:1), and only its IP family is gathered.
	PublicIP string
	// PortMin and PortMax bound the UDP ports (RTC_UDP_PORT_MIN/MAX); 0,0: any.
	PortMin, PortMax uint16
	// UDPPort, when set, is the one UDP port every leg shares
	// (RTC_UDP_PORT): one socket per gathered address, the legs told
	// apart by their ICE credentials. Not with PortMin and PortMax.
	UDPPort uint16
	// FailedTimeout is how long ICE may lose the peer before the leg ends
	// (default 10 s).
	FailedTimeout time.Duration
	// ConnectTimeout is how long a leg may take to connect once both SDPs
	// are known (after Answer, or after SetAnswer) before it ends
	// (default 30 s).
	ConnectTimeout time.Duration
}

// Opus and telephone-event as negotiated with the platform and browsers.
var (
	opusCodec = webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{
			MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2,
			SDPFmtpLine: "minptime=10;useinbandfec=1",
		},
		PayloadType: 111,
	}
	dtmfCodecs = []webrtc.RTPCodecParameters{
		{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: mimeTelephoneEvent, ClockRate: 48000, SDPFmtpLine: "0-16"}, PayloadType: 110},
		{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: mimeTelephoneEvent, ClockRate: 8000, SDPFmtpLine: "0-16"}, PayloadType: 101},
	}
)

const mimeTelephoneEvent = "audio/telephone-event"

// Engine makes legs. It is safe for concurrent use.
type Engine struct {
	settings       webrtc.SettingEngine
	placement      placement
	udpMux         io.Closer // RTC_UDP_PORT's sockets, nil without
	connectTimeout time.Duration

	mu     sync.Mutex
	legs   map[*Leg]struct{}
	closed bool
}

// NewEngine checks cfg and prepares the ICE settings every leg shares.
func NewEngine(cfg Config) (*Engine, error) {
	p, err := placementOf(cfg)
	if err != nil {
		return nil, err
	}
	se, err := settingsFor(cfg, p)
	if err != nil {
		return nil, err
	}
	e := &Engine{placement: p, legs: map[*Leg]struct{}{}, connectTimeout: cfg.ConnectTimeout}
	if e.connectTimeout <= 0 {
		e.connectTimeout = 30 * time.Second
	}
	if cfg.UDPPort != 0 {
		mux, err := p.udpMux(int(cfg.UDPPort))
		if err != nil {
			return nil, err
		}
		se.SetICEUDPMux(mux)
		e.udpMux = mux
	}
	e.settings = se
	return e, nil
}

// Placement describes where the engine gathers and what it announces, for
// the startup log: "127.0.0.1 (listen addresses 127.0.0.1)".
func (e *Engine) Placement() string {
	addrs := joinAddrs(e.placement.gathered)
	if addrs == "" {
		addrs = "no address"
	}
	return addrs + " (" + e.placement.String() + ")"
}

func settingsFor(cfg Config, p placement) (webrtc.SettingEngine, error) {
	var se webrtc.SettingEngine
	if err := p.apply(&se); err != nil {
		return se, err
	}
	if cfg.UDPPort != 0 && (cfg.PortMin != 0 || cfg.PortMax != 0) {
		return se, errors.New("media: one UDP port or a UDP port range, not both")
	}
	if cfg.PortMin != 0 || cfg.PortMax != 0 {
		if cfg.PortMin == 0 || cfg.PortMax == 0 {
			return se, fmt.Errorf("media: UDP port range %d-%d: set both ends or neither", cfg.PortMin, cfg.PortMax)
		}
		if err := se.SetEphemeralUDPPortRange(cfg.PortMin, cfg.PortMax); err != nil {
			return se, fmt.Errorf("media: UDP port range %d-%d: %w", cfg.PortMin, cfg.PortMax, err)
		}
	}
	failed := cfg.FailedTimeout
	if failed <= 0 {
		failed = 10 * time.Second
	}
	se.SetICETimeouts(min(5*time.Second, failed), failed, 2*time.Second)
	return se, nil
}

// newAPI builds the per-leg pion API: pion wants one MediaEngine per
// PeerConnection, as negotiation mutates it.
func (e *Engine) newAPI() (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	for _, c := range append([]webrtc.RTPCodecParameters{opusCodec}, dtmfCodecs...) {
		if err := m.RegisterCodec(c, webrtc.RTPCodecTypeAudio); err != nil {
			return nil, fmt.Errorf("media: register %s: %w", c.MimeType, err)
		}
	}
	reg := &interceptor.Registry{}
	// Sender and receiver reports only: no NACK or congestion control for
	// a 20 ms audio relay.
	if err := webrtc.ConfigureRTCPReports(reg); err != nil {
		return nil, fmt.Errorf("media: RTCP reports: %w", err)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(e.settings),
		webrtc.WithInterceptorRegistry(reg)), nil
}

// Close closes every leg; later Answer and Offer fail with ErrClosed.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	legs := make([]*Leg, 0, len(e.legs))
	for l := range e.legs {
		legs = append(legs, l)
	}
	e.mu.Unlock()
	var errs []error
	for _, l := range legs {
		errs = append(errs, l.Close())
	}
	if e.udpMux != nil {
		errs = append(errs, e.udpMux.Close())
	}
	return errors.Join(errs...)
}

// Legs is the number of open legs.
func (e *Engine) Legs() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.legs)
}

func (e *Engine) track(l *Leg) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	e.legs[l] = struct{}{}
	return nil
}

func (e *Engine) forget(l *Leg) {
	e.mu.Lock()
	delete(e.legs, l)
	e.mu.Unlock()
}

// Answer makes a leg from a remote SDP offer and returns its complete SDP
// answer (ICE gathering done, no trickle). Errors: ErrBadSDP (wrapped) for
// an unusable offer, ErrClosed, ctx's error while gathering.
func (e *Engine) Answer(ctx context.Context, offer string, opts LegOptions) (*Leg, string, error) {
	if err := checkRemoteSDP(offer); err != nil {
		return nil, "", err
	}
	l, err := e.newLeg(opts)
	if err != nil {
		return nil, "", err
	}
	answer, err := l.answer(ctx, offer)
	if err != nil {
		l.unborn.Store(true)
		_ = l.Close()
		return nil, "", err
	}
	l.expectConnection()
	return l, answer, nil
}

// Offer makes a leg that offers (outgoing calls); SetAnswer completes it.
// The offer is complete (ICE gathering done). Until SetAnswer the leg waits
// without limit (the callee may ring a while): the caller closes it when it
// gives up. Errors: ErrClosed, ctx's error while gathering.
func (e *Engine) Offer(ctx context.Context, opts LegOptions) (*Leg, string, error) {
	l, err := e.newLeg(opts)
	if err != nil {
		return nil, "", err
	}
	offer, err := l.offer(ctx)
	if err != nil {
		l.unborn.Store(true)
		_ = l.Close()
		return nil, "", err
	}
	return l, offer, nil
}

// localDescription sets desc and waits for ICE gathering to finish, so the
// SDP carries every candidate.
func localDescription(ctx context.Context, pc *webrtc.PeerConnection, desc webrtc.SessionDescription) (string, error) {
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(desc); err != nil {
		return "", fmt.Errorf("media: set local description: %w", err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return "", fmt.Errorf("media: gathering ICE candidates: %w", ctx.Err())
	}
	return pc.LocalDescription().SDP, nil
}
