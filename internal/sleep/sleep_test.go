package sleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	ctx := context.Background()
	if err := For(ctx, time.Millisecond); err != nil {
		t.Fatalf("a short wait: %v", err)
	}
	if err := For(ctx, 0); err != nil {
		t.Fatalf("no wait: %v", err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := For(ended, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("an ended context: %v", err)
	}
	if err := For(ended, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("an ended context, no wait: %v", err)
	}
	if err := Until(ended, time.Now().Add(-time.Second)); !errors.Is(err, context.Canceled) {
		t.Fatalf("a past time with an ended context: %v", err)
	}
	if err := Until(ctx, time.Now().Add(-time.Second)); err != nil {
		t.Fatalf("a past time: %v", err)
	}
}
