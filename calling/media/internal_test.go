package media

import (
	"bytes"
	"testing"
	"time"

	"github.com/pion/rtp"

	"switchboard/calling/media/internal/rtptrack"
)

func TestOpusSamples(t *testing.T) {
	tests := []struct {
		name   string
		packet []byte
		want   uint32
	}{
		{"Empty", nil, 0},
		{"CELT20msOneFrame", []byte{0xf8, 1, 2}, 960},
		{"CELT10msTwoFrames", []byte{0xf1, 1}, 960},
		{"SILK60ms", []byte{0x18, 1}, 2880},
		{"Hybrid10ms", []byte{0x60, 1}, 480},
		{"CELT2_5msArbitrary3", []byte{0x83, 3, 1}, 360},
		{"ArbitraryWithoutCount", []byte{0x83}, 0},
		{"Over120ms", []byte{0x1b, 3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := opusSamples(tt.packet); got != tt.want {
				t.Fatalf("opusSamples(%x) = %d, want %d", tt.packet, got, tt.want)
			}
		})
	}
}

func TestDTMFDetector(t *testing.T) {
	event := func(code byte, end bool, duration uint16) []byte {
		flags := byte(10)
		if end {
			flags |= 0x80
		}
		return []byte{code, flags, byte(duration >> 8), byte(duration)}
	}
	type pkt struct {
		ts      uint32
		payload []byte
	}
	tests := []struct {
		name    string
		packets []pkt
		want    string
	}{
		{"OnePressWithRepeatedEnds", []pkt{{100, event(5, false, 160)}, {100, event(5, false, 320)}, {100, event(5, true, 480)}, {100, event(5, true, 480)}, {100, event(5, true, 480)}}, "5"},
		{"EndPacketsOnly", []pkt{{100, event(11, true, 800)}, {100, event(11, true, 800)}}, "#"},
		{"SameKeyTwice", []pkt{{100, event(1, true, 800)}, {100, event(1, true, 800)}, {2000, event(1, false, 160)}, {2000, event(1, true, 800)}}, "11"},
		{"AllKeys", []pkt{{1, event(0, true, 1)}, {2, event(9, true, 1)}, {3, event(10, true, 1)}, {4, event(11, true, 1)}, {5, event(12, true, 1)}, {6, event(15, true, 1)}}, "09*#AD"},
		{"NonKeyEventsIgnored", []pkt{{1, event(16, true, 1)}, {2, event(70, true, 1)}}, ""},
		{"ShortPayloadIgnored", []pkt{{1, []byte{5, 0x80}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []rune
			d := dtmfDetector{onDigit: func(r rune) { got = append(got, r) }}
			for _, p := range tt.packets {
				d.packet(p.ts, p.payload)
			}
			if string(got) != tt.want {
				t.Fatalf("digits %q, want %q", string(got), tt.want)
			}
		})
	}
}

func TestDTMFEventRoundTrip(t *testing.T) {
	for _, key := range "0123456789*#ABCD" {
		code, ok := DTMFEvent(key)
		if !ok {
			t.Fatalf("DTMFEvent(%q) refused", key)
		}
		if back, ok := dtmfDigit(code); !ok || back != key {
			t.Fatalf("%q -> %d -> %q", key, code, back)
		}
	}
	if _, ok := DTMFEvent('x'); ok {
		t.Fatal("DTMFEvent('x') accepted")
	}
}

// FuzzCheckRemoteSDP feeds arbitrary descriptions to the SDP gate: it must
// never panic, and what it accepts must offer Opus.
func FuzzCheckRemoteSDP(f *testing.F) {
	f.Add("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, s string) {
		if checkRemoteSDP(s) == nil && !bytes.Contains(bytes.ToLower([]byte(s)), []byte("opus/48000")) {
			t.Fatalf("accepted SDP without Opus: %q", s)
		}
	})
}

// FuzzReadOgg feeds arbitrary files to the Ogg loader: errors, no panics,
// and every packet it keeps has a valid duration.
func FuzzReadOgg(f *testing.F) {
	f.Add([]byte("OggS"))
	f.Fuzz(func(t *testing.T, b []byte) {
		src, err := readOgg(bytes.NewReader(b))
		if err != nil {
			return
		}
		for i, p := range src.packets {
			if opusSamples(p) == 0 || src.samples[i] == 0 {
				t.Fatalf("packet %d kept with no duration", i)
			}
		}
	})
}

func TestRecordingFillsGapsWithSilence(t *testing.T) {
	path := t.TempDir() + "/gap.ogg"
	l := &Leg{}
	rec, err := l.Record(path)
	if err != nil {
		t.Fatal(err)
	}
	frame := []byte{0xf8, 1, 2, 3}
	// Two frames, a 100 ms pause (5 frames missing), a duplicate, one more.
	for _, ts := range []uint32{1000, 1960, 1000 + 7*960, 1000 + 7*960, 1000 + 8*960} {
		rec.write(&rtp.Packet{Header: rtp.Header{Timestamp: ts}, Payload: frame})
	}
	dur, err := rec.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if want := 9 * 20 * time.Millisecond; dur != want {
		t.Fatalf("duration %v, want %v", dur, want)
	}
	packets, err := ReadOggPackets(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []byte
	for _, p := range packets {
		if bytes.Equal(p, opusSilence) {
			kinds = append(kinds, 's')
		} else {
			kinds = append(kinds, 'a')
		}
	}
	if string(kinds) != "aasssssaa" {
		t.Fatalf("packets %s, want aasssssaa", kinds)
	}
	if d, err := OggDuration(path); err != nil || d < 100*time.Millisecond {
		t.Fatalf("OggDuration %v, %v", d, err)
	}
}

func TestOutStreamRebasesEachFeed(t *testing.T) {
	o := newOutStream(rtptrack.New(opusCodec.RTPCodecCapability, "a", "s"))
	o.seq, o.ts = 100, 5000
	frame := []byte{0xf8, 1}
	a := newFeed(nil)
	o.setFeed(a)
	for _, seq := range []uint16{7, 8, 10, 9} { // 9 arrives late
		if err := o.write(a, seq, uint32(seq)*960, frame); err != nil {
			t.Fatal(err)
		}
	}
	if o.seq != 104 || o.ts != 5000+960+3*960 {
		t.Fatalf("after feed a: seq %d ts %d, want 104 %d", o.seq, o.ts, 5000+4*960)
	}
	b := newFeed(nil)
	o.setFeed(b)
	if err := o.write(a, 11, 11*960, frame); err != errStale {
		t.Fatalf("replaced feed wrote: %v", err)
	}
	if err := o.write(b, 60000, 123, frame); err != nil {
		t.Fatal(err)
	}
	if o.seq != 105 || o.ts-(5000+4*960) < 960 {
		t.Fatalf("feed b starts at seq %d ts %d", o.seq, o.ts)
	}
}
