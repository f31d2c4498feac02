package events

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
)

// receive waits for one value of c.
func receive[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s in 10 s", what)
	}
	panic("unreachable")
}

// TestControlMessagesReachEveryNode: a control message published by one
// node is handed to the handlers of its name on every node, the publisher
// included, and never to event subscribers.
func TestControlMessagesReachEveryNode(t *testing.T) {
	mr := miniredis.RunT(t)
	a, _ := startBus(t, mr.Addr(), time.Minute)
	b, _ := startBus(t, mr.Addr(), time.Minute)
	got := map[*Bus]chan string{a: make(chan string, 4), b: make(chan string, 4)}
	for bus, c := range got {
		bus.OnControl("probe", func(body []byte) { c <- string(body) })
	}
	org := uuid.New()
	sub := b.Subscribe(org, 8)
	defer sub.Close()

	a.PublishControl(context.Background(), "probe", []byte(`{"n":1}`))
	for bus, c := range got {
		if body := receive(t, c, "control message"); body != `{"n":1}` {
			t.Fatalf("node %s got %q", bus.node, body)
		}
	}
	// An event after it still reaches its subscriber: the control
	// message was not taken for one.
	publish(t, mr.Addr(), org)
	if ev := receive(t, sub.C(), "event"); ev.OrgID != org {
		t.Fatalf("event %+v", ev)
	}
}

// TestResubscribeFunctionsRunWhenTheSubscriptionIsBack: control messages
// published while a node's subscription is down are lost to it, so the
// node runs its OnResubscribe functions once it is subscribed again.
func TestResubscribeFunctionsRunWhenTheSubscriptionIsBack(t *testing.T) {
	mr := miniredis.RunT(t)
	b, _ := startBus(t, mr.Addr(), time.Minute)
	back := make(chan struct{}, 4)
	b.OnResubscribe(func() { back <- struct{}{} })
	mr.Close()
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	receive(t, back, "call once subscribed again")
}

// TestSubscribingAgainAfterARefusal: a Redis that restarts answers
// commands with LOADING until its data is read, SUBSCRIBE included, and
// go-redis keeps such a connection though it is subscribed to nothing.
// The bus subscribes again until Redis confirms it, and only then runs
// its OnResubscribe functions; events reach subscribers afterwards.
func TestSubscribingAgainAfterARefusal(t *testing.T) {
	mr := miniredis.RunT(t)
	b, _ := startBus(t, mr.Addr(), time.Minute)
	back := make(chan struct{}, 4)
	b.OnResubscribe(func() { back <- struct{}{} })
	mr.Close()
	mr.SetError("LOADING Redis is loading the dataset in memory") // for the restarted server
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-back:
		t.Fatal("resubscribed while Redis refused the subscription")
	case <-time.After(500 * time.Millisecond):
	}
	mr.SetError("")
	receive(t, back, "call once subscribed again")
	org := uuid.New()
	sub := b.Subscribe(org, 8)
	defer sub.Close()
	publish(t, mr.Addr(), org)
	if ev := receive(t, sub.C(), "event"); ev.OrgID != org {
		t.Fatalf("event %+v", ev)
	}
}
