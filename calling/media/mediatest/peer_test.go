package mediatest_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"switchboard/calling/media/mediatest"
)

func TestPeersTalkDirectly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := mediatest.NewPeer(t), mediatest.NewPeer(t)
	a.SetAnswer(b.Answer(a.Offer()))
	if err := a.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.SendAudio(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if err := a.SendDTMF(ctx, '9'); err != nil {
		t.Fatal(err)
	}
	if err := b.WaitReceived(ctx, 5+8); err != nil {
		t.Fatal(err)
	}
	got := b.Received()
	tone := mediatest.TonePackets()
	for i := range 5 {
		if !bytes.Equal(got[i].Payload, tone[i]) {
			t.Fatalf("packet %d is not the tone's", i)
		}
	}
	events := got[5:]
	for i, p := range events {
		if p.PayloadType == got[0].PayloadType || p.Payload[0] != 9 || p.Timestamp != events[0].Timestamp {
			t.Fatalf("event packet %d: %+v", i, p)
		}
		if end := p.Payload[1]&0x80 != 0; end != (i >= 5) {
			t.Fatalf("event packet %d: end bit %v", i, end)
		}
	}
	if err := a.SendDTMF(ctx, 'x'); err == nil {
		t.Fatal("SendDTMF('x') accepted")
	}
	if n := len(mediatest.TonePackets()); n != 51 {
		t.Fatalf("tone has %d packets", n)
	}
}
