package events

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/internal/testkit"
)

// startBus runs a bus on the Redis at addr until the test ends.
func startBus(t *testing.T, addr string, lease time.Duration) (*Bus, context.CancelFunc) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	b := New(Options{Redis: rdb, Channel: "resync-test", NodeLease: lease, Log: slog.New(slog.DiscardHandler)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ready := make(chan struct{})
	go func() { defer close(done); b.Run(ctx, ready) }()
	t.Cleanup(func() { cancel(); <-done })
	<-ready
	return b, cancel
}

// ended waits for sub to be ended by the bus and returns why.
func ended(t *testing.T, sub *Subscription) error {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-sub.C():
			if !ok {
				return sub.Err()
			}
		case <-timeout:
			t.Fatal("the subscription was not ended")
		}
	}
}

// publish sends an event through Redis the way Record's publisher does.
func publish(t *testing.T, addr string, org uuid.UUID) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if err := rdb.Publish(context.Background(), "resync-test", encode(org, FrameMessageNew, []byte(`{}`))).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestResyncWhenRedisRestarts: a Redis restart ends every subscription
// with ErrResync (frames published meanwhile are lost to pub/sub), and
// once the bus has subscribed again, a new subscription gets every event.
func TestResyncWhenRedisRestarts(t *testing.T) {
	mr := miniredis.RunT(t)
	b, _ := startBus(t, mr.Addr(), time.Minute)
	org := uuid.New()
	before := b.Subscribe(org, 8)
	mr.Close()
	if err := ended(t, before); !errors.Is(err, ErrResync) {
		t.Fatalf("subscription ended with %v, want ErrResync", err)
	}
	during := b.Subscribe(org, 8) // a client that reconnects during the outage
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := ended(t, during); !errors.Is(err, ErrResync) {
		t.Fatalf("a subscription made during the outage ended with %v, want ErrResync once subscribed again", err)
	}
	after := b.Subscribe(org, 8)
	defer after.Close()
	publish(t, mr.Addr(), org)
	select {
	case ev, ok := <-after.C():
		if !ok || ev.OrgID != org {
			t.Fatalf("after the restart: %+v, open %v (err %v)", ev, ok, after.Err())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event after the restart")
	}
}

// TestResyncWhenANodeDies: a node whose lease lapses (it died, perhaps
// between a commit and its publish) makes every node resync, once; a node
// that stops cleanly gives its lease back and makes nobody resync.
func TestResyncWhenANodeDies(t *testing.T) {
	mr := miniredis.RunT(t)
	lease := 600 * time.Millisecond
	a, _ := startBus(t, mr.Addr(), lease)
	b, cancelB := startBus(t, mr.Addr(), lease)
	stopB := func() { cancelB(); b.Leave() }
	org := uuid.New()

	// B stops cleanly: its lease is given back, A's subscriber is kept.
	kept := a.Subscribe(org, 8)
	stopB()
	testkit.Eventually(t, "B's lease given back", func() bool { return !hasMember(mr, a.nodesKey(), b.node) })
	// Long enough for a lapsed lease to be seen: that no resync comes of
	// a clean stop is what is checked, so time passes.
	time.Sleep(3 * lease)
	select {
	case _, ok := <-kept.C():
		if !ok {
			t.Fatalf("a clean stop ended another node's subscription: %v", kept.Err())
		}
	default:
	}

	// A node that vanished without giving its lease back.
	resyncs := countResyncs(t, mr.Addr())
	if _, err := mr.ZAdd(a.nodesKey(), float64(time.Now().Add(-time.Hour).UnixMilli()), "dead-node"); err != nil {
		t.Fatal(err)
	}
	if err := ended(t, kept); !errors.Is(err, ErrResync) {
		t.Fatalf("ended with %v, want ErrResync", err)
	}
	if hasMember(mr, a.nodesKey(), "dead-node") {
		t.Fatal("the lapsed lease was not removed")
	}
	if !hasMember(mr, a.nodesKey(), a.node) {
		t.Fatal("the live node's lease is missing")
	}
	// Further checks of the nodes pass: that they send no second resync
	// is what is checked, so time passes.
	time.Sleep(2 * lease)
	if n := resyncs(); n != 1 {
		t.Fatalf("%d resync messages for one dead node, want 1", n)
	}
}

func hasMember(mr *miniredis.Miniredis, key, member string) bool {
	members, _ := mr.ZMembers(key)
	return slices.Contains(members, member)
}

// countResyncs counts the resync messages on the channel from now on.
func countResyncs(t *testing.T, addr string) func() int {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	ps := rdb.Subscribe(context.Background(), "resync-test")
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := make(chan int, 1)
	n <- 0
	go func() {
		for m := range ps.Channel() {
			if len(m.Payload) >= len(resyncMessage) && m.Payload[:len(resyncMessage)] == string(resyncMessage) {
				n <- <-n + 1
			}
		}
	}()
	t.Cleanup(func() { _ = ps.Close(); _ = rdb.Close() })
	return func() int { v := <-n; n <- v; return v }
}
