// Package rtptrack is a local audio track that sends RTP packets as given,
// choosing the payload type per packet: Opus for audio, telephone-event for
// RFC 4733 DTMF. pion's TrackLocalStaticRTP stamps one payload type on every
// packet, which cannot carry DTMF beside the audio on the same stream.
package rtptrack

import (
	"errors"
	"strings"
	"sync"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// ErrNoTelephoneEvent is returned when the peer did not negotiate telephone-event.
var ErrNoTelephoneEvent = errors.New("rtptrack: telephone-event not negotiated")

// Track is an Opus TrackLocal bound to at most one PeerConnection.
type Track struct {
	id, streamID string
	codec        webrtc.RTPCodecCapability

	mu      sync.RWMutex
	bound   bool
	ssrc    uint32
	opusPT  uint8
	eventPT uint8
	hasDTMF bool
	writer  webrtc.TrackLocalWriter
}

// New returns an unbound track that sends codec (Opus).
func New(codec webrtc.RTPCodecCapability, id, streamID string) *Track {
	return &Track{id: id, streamID: streamID, codec: codec}
}

// Bind picks the negotiated Opus and telephone-event payload types.
func (t *Track) Bind(ctx webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	var opus *webrtc.RTPCodecParameters
	eventPT, hasDTMF := uint8(0), false
	for _, c := range ctx.CodecParameters() {
		switch {
		case strings.EqualFold(c.MimeType, webrtc.MimeTypeOpus) && opus == nil:
			c := c
			opus = &c
		case strings.EqualFold(c.MimeType, MimeTypeTelephoneEvent):
			// Prefer the 48 kHz clock: it shares the Opus timestamp space.
			if !hasDTMF || c.ClockRate == 48000 {
				eventPT, hasDTMF = uint8(c.PayloadType), true
			}
		}
	}
	if opus == nil {
		return webrtc.RTPCodecParameters{}, webrtc.ErrUnsupportedCodec
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.bound, t.ssrc, t.writer = true, uint32(ctx.SSRC()), ctx.WriteStream()
	t.opusPT, t.eventPT, t.hasDTMF = uint8(opus.PayloadType), eventPT, hasDTMF
	return *opus, nil
}

// Unbind stops sending.
func (t *Track) Unbind(webrtc.TrackLocalContext) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.bound, t.writer = false, nil
	return nil
}

// ID is the track id.
func (t *Track) ID() string { return t.id }

// RID is empty: no simulcast for audio.
func (t *Track) RID() string { return "" }

// StreamID is the media stream id.
func (t *Track) StreamID() string { return t.streamID }

// Kind is audio.
func (t *Track) Kind() webrtc.RTPCodecType { return webrtc.RTPCodecTypeAudio }

// Codec is the Opus capability the track sends.
func (t *Track) Codec() webrtc.RTPCodecCapability { return t.codec }

// WriteAudio sends an Opus packet; before negotiation it is dropped.
func (t *Track) WriteAudio(h *rtp.Header, payload []byte) error {
	return t.write(h, payload, false)
}

// WriteEvent sends an RFC 4733 telephone-event packet.
func (t *Track) WriteEvent(h *rtp.Header, payload []byte) error {
	return t.write(h, payload, true)
}

func (t *Track) write(h *rtp.Header, payload []byte, event bool) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.bound {
		return nil
	}
	hdr := *h
	hdr.SSRC = t.ssrc
	hdr.PayloadType = t.opusPT
	if event {
		if !t.hasDTMF {
			return ErrNoTelephoneEvent
		}
		hdr.PayloadType = t.eventPT
	}
	_, err := t.writer.WriteRTP(&hdr, payload)
	return err
}

// MimeTypeTelephoneEvent is RFC 4733's media type.
const MimeTypeTelephoneEvent = "audio/telephone-event"
