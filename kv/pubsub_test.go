package kv_test

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"switchboard/kv"
)

// TestSubscribeNeedsTheConfirmation: a subscription Redis refused (a
// server loading its data answers LOADING) is an error, not a
// subscription to nothing; once Redis answers, the subscription gets
// what is published.
func TestSubscribeNeedsTheConfirmation(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()

	mr.SetError("LOADING Redis is loading the dataset in memory")
	if ps, err := kv.Subscribe(ctx, rdb, "ch", time.Second); err == nil {
		_ = ps.Close()
		t.Fatal("subscribed while Redis refused it")
	}
	mr.SetError("")
	ps, err := kv.Subscribe(ctx, rdb, "ch", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	got := make(chan string, 1)
	done := make(chan error, 1)
	rctx, cancel := context.WithCancel(ctx)
	go func() { done <- kv.Receive(rctx, ps, time.Minute, func(m *redis.Message) { got <- m.Payload }) }()
	if err := rdb.Publish(ctx, "ch", "hello").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p != "hello" {
			t.Fatalf("got %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing received")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Receive ended with %v when its context ended, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Receive did not end with its context")
	}
}

// TestReceiveEndsWhenTheSubscriptionIsLost: a dropped connection ends
// Receive with an error, even when go-redis could reconnect at once (the
// server back, but refusing the new SUBSCRIBE): the caller subscribes
// anew instead of waiting on a connection subscribed to nothing.
func TestReceiveEndsWhenTheSubscriptionIsLost(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ps, err := kv.Subscribe(context.Background(), rdb, "ch", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	done := make(chan error, 1)
	go func() { done <- kv.Receive(context.Background(), ps, time.Minute, func(*redis.Message) {}) }()
	mr.Close()
	mr.SetError("LOADING Redis is loading the dataset in memory")
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Receive ended without an error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Receive did not end when the connection dropped")
	}
}
