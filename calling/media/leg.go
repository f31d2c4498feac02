package media

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"switchboard/calling/media/internal/rtptrack"
)

// LegOptions are the callbacks of one leg. They run on goroutines of their
// own, never inside a call into the engine, so they may call any method of
// the leg (Play, Bridge, Close...) and take the caller's locks.
type LegOptions struct {
	// OnDTMF gets '0'-'9', '*', '#', 'A'-'D' from RFC 4733 telephone-event,
	// once per key press, in order (up to 32 pending; more are dropped).
	OnDTMF func(digit rune)
	// InBandDTMF also listens for keys sent as tones inside the audio
	// (decoding the Opus packets), until the remote sends its first RFC
	// 4733 event; SetInBandDTMF turns it off and on (off while bridged
	// spares the decoding). Needs OnDTMF.
	InBandDTMF bool
	// OnClose is called once when the leg has ended: the remote closed, ICE
	// failed beyond Config.FailedTimeout, or Close.
	OnClose func()
}

// maxPendingDigits bounds digits waiting for a slow OnDTMF.
const maxPendingDigits = 32

// Leg is one PeerConnection carrying one Opus audio stream each way.
type Leg struct {
	engine *Engine
	pc     *webrtc.PeerConnection
	opts   LegOptions
	out    *outStream

	connected     chan struct{}
	connectedOnce sync.Once

	// mu guards closed and wg.Add, so no goroutine starts after Close waits.
	mu      sync.Mutex
	closed  bool
	closing atomic.Bool
	// unborn marks a leg whose Answer or Offer failed: the caller never
	// had it, so OnClose is not called.
	unborn atomic.Bool
	done   chan struct{}
	// closeStarted is closed when Close begins, to wake waiting goroutines.
	closeStarted chan struct{}
	wg           sync.WaitGroup

	// forward is where received audio goes while bridged (nil: nowhere).
	forward atomic.Pointer[forward]
	// digits carries detected keys to the OnDTMF goroutine.
	digits chan rune
	// inband listens for in-band keys (LegOptions.InBandDTMF).
	inband atomic.Bool
	// recordings receive every audio packet; copy on write under mu.
	recordings atomic.Pointer[[]*Recording]
}

func (e *Engine) newLeg(opts LegOptions) (*Leg, error) {
	api, err := e.newAPI()
	if err != nil {
		return nil, err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, fmt.Errorf("media: new peer connection: %w", err)
	}
	track := rtptrack.New(opusCodec.RTPCodecCapability, "audio", "switchboard")
	l := &Leg{
		engine: e, pc: pc, opts: opts,
		out:       newOutStream(track),
		connected: make(chan struct{}),
		done:      make(chan struct{}),

		closeStarted: make(chan struct{}),
	}
	l.inband.Store(opts.InBandDTMF)
	if err := e.track(l); err != nil {
		_ = pc.Close()
		return nil, err
	}
	sender, err := pc.AddTrack(track)
	if err != nil {
		l.unborn.Store(true)
		_ = l.Close()
		return nil, fmt.Errorf("media: add track: %w", err)
	}
	l.goSafe(func() { drainRTCP(sender) })
	if opts.OnDTMF != nil {
		l.digits = make(chan rune, maxPendingDigits)
		// Not counted in wg: OnDTMF may call Close, which waits for wg.
		go l.deliverDigits()
	}
	pc.OnTrack(l.onTrack)
	pc.OnConnectionStateChange(l.onState)
	return l, nil
}

func (l *Leg) answer(ctx context.Context, offer string) (string, error) {
	err := l.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer})
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadSDP, err)
	}
	answer, err := l.pc.CreateAnswer(nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadSDP, err)
	}
	return localDescription(ctx, l.pc, answer)
}

func (l *Leg) offer(ctx context.Context) (string, error) {
	offer, err := l.pc.CreateOffer(nil)
	if err != nil {
		return "", fmt.Errorf("media: create offer: %w", err)
	}
	return localDescription(ctx, l.pc, offer)
}

// SetAnswer completes a leg made by Offer. Errors: ErrBadSDP (wrapped).
func (l *Leg) SetAnswer(answer string) error {
	if err := checkRemoteSDP(answer); err != nil {
		return err
	}
	err := l.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSDP, err)
	}
	l.expectConnection()
	return nil
}

// expectConnection ends the leg if it does not connect within the engine's
// ConnectTimeout: ICE with a peer that never answers never fails by itself.
func (l *Leg) expectConnection() {
	timer := time.NewTimer(l.engine.connectTimeout)
	started := l.goSafe(func() {
		defer timer.Stop()
		select {
		case <-l.connected:
		case <-l.closeStarted:
		case <-timer.C:
			go func() { _ = l.Close() }()
		}
	})
	if !started {
		timer.Stop()
	}
}

// Connected is closed when media can flow (ICE and DTLS connected).
func (l *Leg) Connected() <-chan struct{} { return l.connected }

// Done is closed when the leg has ended.
func (l *Leg) Done() <-chan struct{} { return l.done }

func (l *Leg) onState(s webrtc.PeerConnectionState) {
	switch s {
	case webrtc.PeerConnectionStateConnected:
		l.connectedOnce.Do(func() { close(l.connected) })
	case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
		// Not inline: Close waits for pion's goroutines, this one included.
		go func() { _ = l.Close() }()
	}
}

// Close ends the leg: stops its source, bridge and recordings, closes the
// PeerConnection, waits for its goroutines, then runs OnClose on a goroutine
// of its own. Idempotent.
func (l *Leg) Close() error {
	if !l.closing.CompareAndSwap(false, true) {
		<-l.done
		return nil
	}
	close(l.closeStarted)
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()

	if f := l.out.setFeed(nil); f != nil {
		f.end()
	}
	if fw := l.forward.Swap(nil); fw != nil {
		fw.feed.end()
	}
	err := l.pc.Close()
	l.wg.Wait()
	for _, r := range l.stopRecordings() {
		_, _ = r.Stop()
	}
	l.engine.forget(l)
	close(l.done)
	if l.opts.OnClose != nil && !l.unborn.Load() {
		go l.opts.OnClose()
	}
	if err != nil {
		return fmt.Errorf("media: close: %w", err)
	}
	return nil
}

// goSafe runs fn on a goroutine Close waits for; after Close it does nothing
// and reports false.
func (l *Leg) goSafe(fn func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		fn()
	}()
	return true
}

func drainRTCP(sender *webrtc.RTPSender) {
	buf := make([]byte, 1500)
	for {
		// Reading lets the report interceptor see the peer's receiver reports.
		if _, _, err := sender.Read(buf); err != nil {
			return
		}
	}
}

func (l *Leg) onTrack(track *webrtc.TrackRemote, receiver *webrtc.RTPReceiver) {
	if track.Kind() != webrtc.RTPCodecTypeAudio {
		return
	}
	kinds := payloadKinds(receiver)
	l.goSafe(func() { l.receive(track, kinds) })
}

type payloadKind uint8

const (
	kindOther payloadKind = iota
	kindOpus
	kindEvent
)

// payloadKinds maps the negotiated payload types to what they carry.
func payloadKinds(receiver *webrtc.RTPReceiver) map[uint8]payloadKind {
	kinds := map[uint8]payloadKind{}
	for _, c := range receiver.GetParameters().Codecs {
		switch {
		case strings.EqualFold(c.MimeType, webrtc.MimeTypeOpus):
			kinds[uint8(c.PayloadType)] = kindOpus
		case strings.EqualFold(c.MimeType, mimeTelephoneEvent):
			kinds[uint8(c.PayloadType)] = kindEvent
		}
	}
	return kinds
}

// receive reads the remote audio until the track ends: DTMF goes to
// OnDTMF, audio to the recordings and the bridged leg.
func (l *Leg) receive(track *webrtc.TrackRemote, kinds map[uint8]payloadKind) {
	buf := make([]byte, 1500)
	var pkt rtp.Packet
	dtmf := dtmfDetector{onDigit: l.queueDigit}
	var tones *inbandDetector
	if l.opts.OnDTMF != nil && l.opts.InBandDTMF {
		tones = newInbandDetector(l.queueDigit)
	}
	for {
		n, _, err := track.Read(buf)
		if err != nil {
			return
		}
		if pkt.Unmarshal(buf[:n]) != nil {
			continue
		}
		switch kinds[pkt.PayloadType] {
		case kindEvent:
			dtmf.packet(pkt.Timestamp, pkt.Payload)
			tones = nil // the remote sends its keys as events
			if fw := l.forward.Load(); fw != nil {
				fw.dropped++
			}
		case kindOpus:
			l.record(&pkt)
			l.forwardAudio(&pkt)
			if tones != nil && l.inband.Load() {
				tones.packet(pkt.Payload)
			}
		}
	}
}

// SetInBandDTMF turns the in-band key detection of a leg made with
// LegOptions.InBandDTMF on or off.
func (l *Leg) SetInBandDTMF(on bool) { l.inband.Store(on) }

// queueDigit hands a key to the OnDTMF goroutine without blocking audio.
func (l *Leg) queueDigit(d rune) {
	if l.digits == nil {
		return
	}
	select {
	case l.digits <- d:
	default:
	}
}

func (l *Leg) deliverDigits() {
	for {
		select {
		case d := <-l.digits:
			l.opts.OnDTMF(d)
		case <-l.done:
			return
		}
	}
}
