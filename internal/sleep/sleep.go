// Package sleep waits for a duration or a time unless a context ends
// first: the one way the workers, clients and pacers wait.
package sleep

import (
	"context"
	"time"
)

// For waits d, or until ctx ends (its error is returned then). A d of
// zero or less returns at once, with ctx's error if it has ended.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Until waits until at, or until ctx ends.
func Until(ctx context.Context, at time.Time) error {
	return For(ctx, time.Until(at))
}
