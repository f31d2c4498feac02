package media

import (
	"sync"

	"github.com/pion/rtp"
)

// forward is one direction of a bridge: src's received audio feeding dst.
type forward struct {
	dst  *Leg
	feed *feed
	// dropped counts DTMF packets not forwarded, so the sequence numbers
	// dst sends close over them; only src's receive goroutine touches it.
	dropped uint16
}

// Bridged is a running bridge between two legs.
type Bridged struct {
	ab, ba   *forward
	doneOnce sync.Once
	done     chan struct{}
}

// Bridge forwards each leg's received Opus RTP to the other, unchanged
// but for sequence numbers and timestamps, which are rewritten so each
// leg's outgoing stream stays continuous across source switches. It
// replaces what fed either leg; Stop, or Play on a leg, ends a direction.
func Bridge(a, b *Leg) *Bridged {
	return &Bridged{ab: a.forwardTo(b), ba: b.forwardTo(a)}
}

// Stop ends both directions that still run; the legs fall silent.
func (b *Bridged) Stop() {
	b.ab.feed.end()
	b.ba.feed.end()
}

// Done is closed when both directions have ended (Stop, Play on both
// legs, or a leg closed).
func (b *Bridged) Done() <-chan struct{} {
	b.doneOnce.Do(func() {
		b.done = make(chan struct{})
		go func() {
			<-b.ab.feed.done
			<-b.ba.feed.done
			close(b.done)
		}()
	})
	return b.done
}

func (src *Leg) forwardTo(dst *Leg) *forward {
	fw := &forward{dst: dst}
	fw.feed = newFeed(func() {
		src.forward.CompareAndSwap(fw, nil)
		dst.out.clearFeed(fw.feed)
	})
	dst.replaceFeed(fw.feed)
	if old := src.forward.Swap(fw); old != nil {
		old.feed.end()
	}
	if src.closing.Load() || dst.closing.Load() {
		fw.feed.end()
	}
	return fw
}

// forwardAudio hands a received packet to the bridged leg, if any.
func (l *Leg) forwardAudio(p *rtp.Packet) {
	fw := l.forward.Load()
	if fw == nil {
		return
	}
	err := fw.dst.out.write(fw.feed, p.SequenceNumber-fw.dropped, p.Timestamp, p.Payload)
	if err == errStale {
		fw.feed.end()
	}
}
