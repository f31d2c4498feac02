package media_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"switchboard/calling/media"
	"switchboard/calling/media/mediatest"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"

	"github.com/pion/webrtc/v4/pkg/media/oggwriter"
)

func newEngine(t *testing.T) *media.Engine {
	t.Helper()
	e, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// answerLeg connects peer (offering, like the platform's incoming call) to a new leg.
func answerLeg(t *testing.T, e *media.Engine, p *mediatest.Peer, opts media.LegOptions) *media.Leg {
	t.Helper()
	leg, answer, err := e.Answer(testContext(t), p.Offer(), opts)
	if err != nil {
		t.Fatalf("Answer: %v", err)
	}
	p.SetAnswer(answer)
	waitConnected(t, leg, p)
	return leg
}

// offerLeg connects a new offering leg (an outgoing call) to peer.
func offerLeg(t *testing.T, e *media.Engine, p *mediatest.Peer, opts media.LegOptions) *media.Leg {
	t.Helper()
	leg, offer, err := e.Offer(testContext(t), opts)
	if err != nil {
		t.Fatalf("Offer: %v", err)
	}
	if err := leg.SetAnswer(p.Answer(offer)); err != nil {
		t.Fatalf("SetAnswer: %v", err)
	}
	waitConnected(t, leg, p)
	return leg
}

func waitConnected(t *testing.T, leg *media.Leg, p *mediatest.Peer) {
	t.Helper()
	ctx := testContext(t)
	select {
	case <-leg.Connected():
	case <-ctx.Done():
		t.Fatal("leg not connected")
	}
	if err := p.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not end", what)
	}
}

func toneFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tone.ogg")
	if err := os.WriteFile(path, mediatest.ToneOgg, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLegsConnect(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		name string
		leg  func(*testing.T, *media.Engine, *mediatest.Peer, media.LegOptions) *media.Leg
	}{
		{"Answer", answerLeg},
		{"Offer", offerLeg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mediatest.NewPeer(t)
			leg := tt.leg(t, e, p, media.LegOptions{})
			if err := leg.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPlayOggFileArrivesUnchanged(t *testing.T) {
	e := newEngine(t)
	p := mediatest.NewPeer(t)
	leg := answerLeg(t, e, p, media.LegOptions{})
	path := toneFile(t)
	want, err := media.ReadOggPackets(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := media.OggFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitClosed(t, leg.Play(src), "playback")
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("1 s file played in %v: not paced in real time", took)
	}
	if err := p.WaitReceived(testContext(t), len(want)); err != nil {
		t.Fatal(err)
	}
	got := p.Received()
	if len(got) != len(want) {
		t.Fatalf("received %d packets, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].Payload, want[i]) {
			t.Fatalf("packet %d payload differs from the file's", i)
		}
	}
	assertContinuous(t, got)
}

func TestPlayBeforeConnectedStartsWithTheMedia(t *testing.T) {
	e := newEngine(t)
	p := mediatest.NewPeer(t)
	leg, answer, err := e.Answer(testContext(t), p.Offer(), media.LegOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := media.OggFile(toneFile(t), false)
	if err != nil {
		t.Fatal(err)
	}
	done := leg.Play(src) // the greeting, queued before the platform has the answer
	// The player runs a while before the leg connects: that time passing
	// unconnected is the situation under test.
	time.Sleep(100 * time.Millisecond)
	p.SetAnswer(answer)
	waitClosed(t, done, "greeting")
	tone := mediatest.TonePackets()
	if err := p.WaitReceived(testContext(t), len(tone)); err != nil {
		t.Fatal(err)
	}
	if got := p.Received(); !bytes.Equal(got[0].Payload, tone[0]) {
		t.Fatal("the greeting's first packet was lost before the leg connected")
	}
}

func TestOggFileRefusesWhatItCannotPlay(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tone := mediatest.ToneOgg
	tests := []struct{ name, path string }{
		{"Missing", filepath.Join(dir, "missing.ogg")},
		{"Empty", write("empty.ogg", nil)},
		{"NotOgg", write("text.ogg", []byte("just some text, not audio at all"))},
		{"HeadersOnly", write("head.ogg", tone[:47+28+62])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := media.OggFile(tt.path, false); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	t.Run("SeveralPacketsPerPage", func(t *testing.T) {
		needTool(t, "ffmpeg")
		path := filepath.Join(dir, "pages.ogg")
		cmd := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
			"sine=frequency=300:sample_rate=48000:duration=2", "-c:a", "libopus", "-ac", "1", "-y", path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v %s", err, out)
		}
		if _, err := media.OggFile(path, false); err == nil || !strings.Contains(err.Error(), "one Opus packet per Ogg page") {
			t.Fatalf("OggFile: %v", err)
		}
	})
}

// assertContinuous checks a received stream: each sequence number one
// more than the last, timestamps strictly increasing.
func assertContinuous(t *testing.T, got []mediatest.Packet) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if got[i].SequenceNumber != got[i-1].SequenceNumber+1 {
			t.Fatalf("packet %d: sequence %d after %d", i, got[i].SequenceNumber, got[i-1].SequenceNumber)
		}
		if d := got[i].Timestamp - got[i-1].Timestamp; d == 0 || d > 1<<31 {
			t.Fatalf("packet %d: timestamp %d after %d", i, got[i].Timestamp, got[i-1].Timestamp)
		}
	}
}

func TestDTMFReportedOncePerPress(t *testing.T) {
	e := newEngine(t)
	tests := []struct {
		name  string
		clock uint32
		leg   func(*testing.T, *media.Engine, *mediatest.Peer, media.LegOptions) *media.Leg
	}{
		{"Answer8000", 8000, answerLeg},
		{"Answer48000", 48000, answerLeg},
		{"Offer8000", 8000, offerLeg},
		{"Offer48000", 48000, offerLeg},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var digits []rune
			p := mediatest.NewPeer(t, mediatest.Options{DTMFClock: tt.clock})
			tt.leg(t, e, p, media.LegOptions{OnDTMF: func(d rune) {
				mu.Lock()
				digits = append(digits, d)
				mu.Unlock()
			}})
			ctx := testContext(t)
			for _, d := range "5#A0*" {
				if err := p.SendDTMF(ctx, d); err != nil {
					t.Fatal(err)
				}
			}
			got := func() string {
				mu.Lock()
				defer mu.Unlock()
				return string(digits)
			}
			testkit.Eventually(t, "five digits", func() bool { return len(got()) >= 5 })
			// No late duplicates: that nothing more arrives is what is
			// checked, and no event marks it, so time passes.
			time.Sleep(100 * time.Millisecond)
			if got() != "5#A0*" {
				t.Fatalf("digits %q, want %q", got(), "5#A0*")
			}
		})
	}
}

// bridgedPair connects peer a (incoming platform call) and peer b (an
// agent browser offering) through two bridged legs.
func bridgedPair(t *testing.T, e *media.Engine) (pa, pb *mediatest.Peer, la, lb *media.Leg, br *media.Bridged) {
	pa, pb = mediatest.NewPeer(t), mediatest.NewPeer(t, mediatest.Options{DTMFClock: 48000})
	la = answerLeg(t, e, pa, media.LegOptions{})
	lb = offerLeg(t, e, pb, media.LegOptions{})
	return pa, pb, la, lb, media.Bridge(la, lb)
}

func TestBridgeCarriesAudioBothWays(t *testing.T) {
	e := newEngine(t)
	pa, pb, _, _, _ := bridgedPair(t, e)
	ctx := testContext(t)
	const n = 40
	var wg sync.WaitGroup
	for _, p := range []*mediatest.Peer{pa, pb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.SendAudio(ctx, n); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	tone := mediatest.TonePackets()
	for name, p := range map[string]*mediatest.Peer{"a": pa, "b": pb} {
		if err := p.WaitReceived(ctx, n); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := p.Received()
		if len(got) != n {
			t.Fatalf("%s received %d packets, want %d", name, len(got), n)
		}
		for i, pkt := range got {
			if !bytes.Equal(pkt.Payload, tone[i%len(tone)]) {
				t.Fatalf("%s: packet %d payload changed in the bridge", name, i)
			}
		}
		assertContinuous(t, got)
	}
}

func TestBridgeDropsDTMFAndReportsIt(t *testing.T) {
	e := newEngine(t)
	pa, pb := mediatest.NewPeer(t), mediatest.NewPeer(t)
	digits := make(chan rune, 4)
	la := answerLeg(t, e, pa, media.LegOptions{OnDTMF: func(d rune) { digits <- d }})
	lb := offerLeg(t, e, pb, media.LegOptions{})
	media.Bridge(la, lb)
	ctx := testContext(t)
	if err := pa.SendAudio(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := pa.SendDTMF(ctx, '7'); err != nil {
		t.Fatal(err)
	}
	if err := pa.SendAudio(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := pb.WaitReceived(ctx, 20); err != nil {
		t.Fatal(err)
	}
	if d := <-digits; d != '7' {
		t.Fatalf("digit %q", d)
	}
	got := pb.Received()
	if len(got) != 20 {
		t.Fatalf("b received %d packets, want the 20 audio packets only", len(got))
	}
	assertContinuous(t, got)
}

func TestSourceSwitchesKeepTheStreamContinuous(t *testing.T) {
	e := newEngine(t)
	pa, pb, la, lb, _ := bridgedPair(t, e)
	ctx := testContext(t)
	src, err := media.OggFile(toneFile(t), false)
	if err != nil {
		t.Fatal(err)
	}
	// player -> bridge -> player (hold music) -> bridge, as leg a hears it.
	waitClosed(t, la.Play(src), "greeting")
	media.Bridge(la, lb)
	if err := pb.SendAudio(ctx, 15); err != nil {
		t.Fatal(err)
	}
	if err := pa.WaitReceived(ctx, 50+15); err != nil {
		t.Fatal(err)
	}
	hold := la.Play(src)
	if err := pa.WaitReceived(ctx, 50+15+10); err != nil { // some of the hold music
		t.Fatal(err)
	}
	la.Stop()
	waitClosed(t, hold, "stopped hold music")
	media.Bridge(la, lb)
	if err := pb.SendAudio(ctx, 15); err != nil {
		t.Fatal(err)
	}
	if err := pa.WaitReceived(ctx, 50+15+10+15); err != nil {
		t.Fatal(err)
	}
	got := pa.Received()
	assertContinuous(t, got)
	markers := 0
	for _, p := range got {
		if p.Marker {
			markers++
		}
	}
	if markers != 4 {
		t.Errorf("%d packets start a talkspurt, want 4 (one per source)", markers)
	}
}

func TestPlayOnALegStopsItsBridgeDirection(t *testing.T) {
	e := newEngine(t)
	pa, pb, la, _, br := bridgedPair(t, e)
	ctx := testContext(t)
	src, err := media.OggFile(toneFile(t), true)
	if err != nil {
		t.Fatal(err)
	}
	la.Play(src) // b -> a ends; a -> b still forwards
	fromB := []byte{0xf8, 'f', 'r', 'o', 'm', 'b'}
	for range 10 {
		if err := pb.SendPayload(fromB, 960); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // audio at its real pace, a packet per 20 ms
	}
	if err := pa.SendAudio(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := pb.WaitReceived(ctx, 10); err != nil {
		t.Fatal(err)
	}
	heard := pa.Received()
	if len(heard) < 10 || !bytes.Equal(heard[0].Payload, mediatest.TonePackets()[0]) {
		t.Fatalf("a heard %d packets, not the file", len(heard))
	}
	for i, p := range heard {
		if bytes.Equal(p.Payload, fromB) {
			t.Fatalf("a heard b's audio (packet %d) while playing the file", i)
		}
	}
	br.Stop()
	la.Stop()
	pb.Reset()
	if err := pa.SendAudio(ctx, 5); err != nil {
		t.Fatal(err)
	}
	// That nothing reaches b is what is checked, and no event marks it,
	// so time passes.
	time.Sleep(200 * time.Millisecond)
	if n := len(pb.Received()); n != 0 {
		t.Fatalf("b received %d packets after the bridge stopped", n)
	}
}

func TestRecordWritesReceivedPackets(t *testing.T) {
	e := newEngine(t)
	pa, pb, la, _, _ := bridgedPair(t, e)
	path := filepath.Join(t.TempDir(), "a.ogg")
	rec, err := la.Record(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	const n = 30
	if err := pa.SendAudio(ctx, n); err != nil {
		t.Fatal(err)
	}
	if err := pb.WaitReceived(ctx, n); err != nil {
		t.Fatal(err)
	}
	dur, err := rec.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if dur != n*20*time.Millisecond {
		t.Errorf("duration %v, want %v", dur, n*20*time.Millisecond)
	}
	got, err := media.ReadOggPackets(path)
	if err != nil {
		t.Fatal(err)
	}
	tone := mediatest.TonePackets()
	if len(got) != n {
		t.Fatalf("file holds %d packets, want %d", len(got), n)
	}
	for i := range got {
		if !bytes.Equal(got[i], tone[i%len(tone)]) {
			t.Fatalf("packet %d differs from what was sent", i)
		}
	}
	if d2, err := rec.Stop(); d2 != dur || err != nil {
		t.Fatalf("second Stop: %v, %v", d2, err)
	}
}

func needTool(t *testing.T, name string) {
	t.Helper()
	testenv.RequireTool(t, name)
}

func TestMixRecordings(t *testing.T) {
	needTool(t, "ffmpeg")
	needTool(t, "ffprobe")
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short.ogg"), filepath.Join(dir, "long.ogg")
	for path, secs := range map[string]string{short: "1", long: "3"} {
		cmd := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
			"sine=frequency=300:sample_rate=48000:duration="+secs,
			"-c:a", "libopus", "-ar", "48000", "-ac", "1", "-page_duration", "20000", "-y", path)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ffmpeg: %v %s", err, out)
		}
	}
	out := filepath.Join(dir, "mix.ogg")
	dur, err := media.MixRecordings(testContext(t), out, short, long)
	if err != nil {
		t.Fatal(err)
	}
	if dur < 2900*time.Millisecond || dur > 3100*time.Millisecond {
		t.Errorf("mix lasts %v, want about 3 s", dur)
	}
	probe, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name,channels:format=duration",
		"-of", "default=noprint_wrappers=1", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"codec_name=opus", "channels=1", "duration=3.0"} {
		if !strings.Contains(string(probe), want) {
			t.Errorf("ffprobe %q lacks %q", probe, want)
		}
	}
	if _, err := media.MixRecordings(testContext(t), out); err == nil {
		t.Error("mixing nothing succeeded")
	}
	if _, err := media.MixRecordings(testContext(t), out, filepath.Join(dir, "missing.ogg")); err == nil {
		t.Error("mixing a missing file succeeded")
	}

	// A side that never sent a packet leaves a file of headers only: the
	// mix is the other side's audio, and nothing when no side has any.
	silent := filepath.Join(dir, "silent.ogg")
	w, err := oggwriter.New(silent, 48000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if dur, err := media.MixRecordings(testContext(t), out, silent, long); err != nil || dur < 2900*time.Millisecond {
		t.Errorf("mix of a silent side and 3 s: %v, %v; want about 3 s", dur, err)
	}
	if _, err := media.MixRecordings(testContext(t), out, silent, silent); !errors.Is(err, media.ErrNoAudio) {
		t.Errorf("mix of silent sides: %v, want ErrNoAudio", err)
	}
}

func TestCloseEndsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		e, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}})
		if err != nil {
			t.Fatal(err)
		}
		pa, err := mediatest.New(mediatest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer pa.Close()
		pb, err := mediatest.New(mediatest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer pb.Close()
		var closedA, closedB atomic.Int32
		la := answerLeg(t, e, pa, media.LegOptions{OnClose: func() { closedA.Add(1) }})
		lb := offerLeg(t, e, pb, media.LegOptions{OnClose: func() { closedB.Add(1) }})
		br := media.Bridge(la, lb)
		src, err := media.OggFile(toneFile(t), true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := la.Record(filepath.Join(t.TempDir(), "a.ogg")); err != nil {
			t.Fatal(err)
		}
		playing := lb.Play(src)

		if err := la.Close(); err != nil {
			t.Fatal(err)
		}
		_ = la.Close()
		waitClosed(t, br.Done(), "bridge")
		testkit.Eventually(t, "OnClose of a", func() bool { return closedA.Load() == 1 })
		time.Sleep(50 * time.Millisecond) // no second call: nothing marks that none will come
		if closedA.Load() != 1 {
			t.Fatalf("OnClose called %d times", closedA.Load())
		}
		if _, err := la.Record(filepath.Join(t.TempDir(), "late.ogg")); !errors.Is(err, media.ErrClosed) {
			t.Fatalf("Record after Close: %v", err)
		}
		waitClosed(t, la.Play(src), "Play after Close")

		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, playing, "playback")
		waitClosed(t, lb.Done(), "leg b")
		testkit.Eventually(t, "OnClose of b", func() bool { return closedB.Load() == 1 })
		if closedB.Load() != 1 || e.Legs() != 0 {
			t.Fatalf("after engine Close: OnClose b %d, legs %d", closedB.Load(), e.Legs())
		}
		if _, _, err := e.Offer(testContext(t), media.LegOptions{}); !errors.Is(err, media.ErrClosed) {
			t.Fatalf("Offer after Close: %v", err)
		}
	}()
	assertNoLeak(t, before)
}

func TestRemoteCloseEndsTheLeg(t *testing.T) {
	e := newEngine(t)
	p := mediatest.NewPeer(t)
	closed := make(chan struct{})
	leg := answerLeg(t, e, p, media.LegOptions{OnClose: func() { close(closed) }})
	p.Close()
	waitClosed(t, closed, "leg after the remote closed")
	waitClosed(t, leg.Done(), "leg")
}

func TestCallbacksMayCloseTheLeg(t *testing.T) {
	e := newEngine(t)
	p := mediatest.NewPeer(t)
	var leg *media.Leg
	ready := make(chan struct{})
	closed := make(chan struct{})
	leg = answerLeg(t, e, p, media.LegOptions{
		OnDTMF:  func(rune) { <-ready; _ = leg.Close() }, // hang up on a key, from the callback
		OnClose: func() { _ = leg.Close(); close(closed) },
	})
	close(ready)
	if err := p.SendDTMF(testContext(t), '#'); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, closed, "leg closed from OnDTMF")
}

func TestICEFailureEndsTheLeg(t *testing.T) {
	e, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}, FailedTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p := mediatest.NewPeer(t, mediatest.Options{Cuttable: true})
	closed := make(chan struct{})
	leg := answerLeg(t, e, p, media.LegOptions{OnClose: func() { close(closed) }})
	if err := p.SendAudio(testContext(t), 3); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p.Cut()
	waitClosed(t, closed, "leg after its peer vanished")
	if took := time.Since(start); took < time.Second {
		t.Errorf("leg ended %v after the peer vanished, before the grace", took)
	}
	waitClosed(t, leg.Done(), "leg")
}

func TestLegThatNeverConnectsEnds(t *testing.T) {
	e, err := media.NewEngine(media.Config{ListenAddrs: []string{"127.0.0.1"}, ConnectTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tests := []struct {
		name string
		leg  func(media.LegOptions) (*media.Leg, error)
	}{
		{"AnswerNeverApplied", func(opts media.LegOptions) (*media.Leg, error) {
			leg, _, err := e.Answer(testContext(t), mediatest.NewPeer(t).Offer(), opts) // the peer never gets the answer
			return leg, err
		}},
		{"AnswererGone", func(opts media.LegOptions) (*media.Leg, error) {
			leg, offer, err := e.Offer(testContext(t), opts)
			if err != nil {
				return nil, err
			}
			p := mediatest.NewPeer(t)
			answer := p.Answer(offer)
			p.Close() // gone before ICE could start
			return leg, leg.SetAnswer(answer)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			closed := make(chan struct{})
			start := time.Now()
			leg, err := tt.leg(media.LegOptions{OnClose: func() { close(closed) }})
			if err != nil {
				t.Fatal(err)
			}
			waitClosed(t, closed, "unconnected leg")
			if took := time.Since(start); took < 300*time.Millisecond {
				t.Errorf("ended after %v, before the connect timeout", took)
			}
			waitClosed(t, leg.Done(), "leg")
		})
	}
}

// assertNoLeak waits for the goroutine count to settle back to before.
func assertNoLeak(t *testing.T, before int) {
	t.Helper()
	if !testkit.Poll(testkit.Deadline, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:n])
	}
}

func TestBadSDP(t *testing.T) {
	e := newEngine(t)
	pcmuOnly := "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:0 PCMU/8000\r\n"
	videoOnly := "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:96 VP8/90000\r\n"
	noICE := "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:111 opus/48000/2\r\na=sendrecv\r\n"
	tests := []struct{ name, sdp string }{
		{"Empty", ""},
		{"Garbage", "hello"},
		{"TooLarge", strings.Repeat("a=x\r\n", 20000)},
		{"NoOpus", pcmuOnly},
		{"VideoOnly", videoOnly},
		{"NoICECredentials", noICE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := e.Answer(testContext(t), tt.sdp, media.LegOptions{
				OnClose: func() { t.Error("OnClose called for a leg never returned") },
			})
			if !errors.Is(err, media.ErrBadSDP) {
				t.Fatalf("Answer: %v, want ErrBadSDP", err)
			}
		})
	}
	t.Run("SetAnswer", func(t *testing.T) {
		leg, _, err := e.Offer(testContext(t), media.LegOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer leg.Close()
		if err := leg.SetAnswer("nonsense"); !errors.Is(err, media.ErrBadSDP) {
			t.Fatalf("SetAnswer: %v, want ErrBadSDP", err)
		}
	})
	if n := e.Legs(); n != 0 {
		t.Fatalf("%d legs left after refused offers", n)
	}
}

func TestPublicIPAndPortRangeInCandidates(t *testing.T) {
	e, err := media.NewEngine(media.Config{PublicIP: "203.0.113.7", PortMin: 41000, PortMax: 41010, ListenAddrs: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	leg, offer, err := e.Offer(testContext(t), media.LegOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer leg.Close()
	found := false
	for _, line := range strings.Split(offer, "\r\n") {
		if !strings.HasPrefix(line, "a=candidate:") {
			continue
		}
		f := strings.Fields(line)
		port, _ := strconv.Atoi(f[5])
		if f[4] != "203.0.113.7" || port < 41000 || port > 41010 || f[7] != "host" {
			t.Errorf("candidate %q: want host 203.0.113.7 in 41000-41010", line)
		}
		found = true
	}
	if !found {
		t.Fatalf("offer has no candidate:\n%s", offer)
	}
}

func TestNewEngineChecksConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  media.Config
		ok   bool
	}{
		{"Defaults", media.Config{}, true},
		{"PublicIPAndPorts", media.Config{PublicIP: "203.0.113.7", PortMin: 40000, PortMax: 40100}, true},
		{"PublicIPNotAnIP", media.Config{PublicIP: "example.com"}, false},
		{"PortsReversed", media.Config{PortMin: 50000, PortMax: 40000}, false},
		{"OnlyPortMax", media.Config{PortMax: 40000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := media.NewEngine(tt.cfg)
			if (err == nil) != tt.ok {
				t.Fatalf("NewEngine: %v", err)
			}
			if e != nil {
				_ = e.Close()
			}
		})
	}
}

// TestInBandDTMF: keys sent as tones inside the Opus audio (no RFC 4733
// event) are heard by a leg with InBandDTMF, whichever mode the encoder
// chose (SILK for voice at low rates, CELT for music rates); a leg that
// received an RFC 4733 event stops listening for tones.
func TestInBandDTMF(t *testing.T) {
	needTool(t, "ffmpeg")
	e := newEngine(t)
	for _, app := range []struct{ name, application, rate string }{
		{"VoiceSILK", "voip", "16k"}, {"AudioCELT", "audio", "64k"},
	} {
		t.Run(app.name, func(t *testing.T) {
			// '7' (852 + 1209 Hz) for 150 ms, silence, '#' (941 + 1477 Hz).
			out := filepath.Join(t.TempDir(), "keys.ogg")
			graph := "sine=f=852:d=0.15[a];sine=f=1209:d=0.15[b];[a][b]amix=inputs=2[k1];" +
				"anullsrc=r=48000:cl=mono,atrim=duration=0.2[s];" +
				"sine=f=941:d=0.15[c];sine=f=1477:d=0.15[d];[c][d]amix=inputs=2[k2];[k1][s][k2]concat=n=3:v=0:a=1[out]"
			cmd := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-filter_complex", graph, "-map", "[out]",
				"-c:a", "libopus", "-application", app.application, "-b:a", app.rate, "-ar", "48000", "-ac", "1",
				"-page_duration", "20000", out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ffmpeg: %v %s", err, b)
			}
			packets, err := media.ReadOggPackets(out)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var digits []rune
			p := mediatest.NewPeer(t)
			answerLeg(t, e, p, media.LegOptions{InBandDTMF: true, OnDTMF: func(d rune) {
				mu.Lock()
				digits = append(digits, d)
				mu.Unlock()
			}})
			for _, pkt := range packets {
				if err := p.SendPayload(pkt, 960); err != nil {
					t.Fatal(err)
				}
				time.Sleep(20 * time.Millisecond) // audio at its real pace, a packet per 20 ms
			}
			got := func() string {
				mu.Lock()
				defer mu.Unlock()
				return string(digits)
			}
			testkit.Eventually(t, "two in-band keys", func() bool { return len(got()) >= 2 })
			if got() != "7#" {
				t.Fatalf("keys %q, want %q", got(), "7#")
			}
			// Once the remote sends events, tones are not listened for.
			ctx := testContext(t)
			if err := p.SendDTMF(ctx, '1'); err != nil {
				t.Fatal(err)
			}
			testkit.Eventually(t, "the event's key", func() bool { return len(got()) >= 3 })
			for _, pkt := range packets {
				if err := p.SendPayload(pkt, 960); err != nil {
					t.Fatal(err)
				}
				time.Sleep(20 * time.Millisecond) // audio at its real pace, a packet per 20 ms
			}
			// No tone heard after an event: nothing marks that none will
			// be, so time passes.
			time.Sleep(100 * time.Millisecond)
			if got() != "7#1" {
				t.Fatalf("keys %q, want %q (no tones after an event)", got(), "7#1")
			}
		})
	}
}
