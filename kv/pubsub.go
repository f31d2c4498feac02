package kv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// Pub/sub subscriptions that know when they are lost. go-redis resubscribes
// a dropped connection by itself, but writes SUBSCRIBE and does not wait
// for the answer: a server that refuses it (a Redis loading its data answers
// LOADING to every command) leaves the connection subscribed to nothing,
// and its pings still answer, so a subscriber would wait forever for
// messages that never come. Subscribe returns only what Redis confirmed,
// and Receive ends at the first error: the caller subscribes anew.

// Subscribe returns a new subscription to channel once Redis has confirmed
// it (within wait).
func Subscribe(ctx context.Context, rdb *redis.Client, channel string, wait time.Duration) (*redis.PubSub, error) {
	ps := rdb.Subscribe(ctx, channel)
	confirmed, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	stop := context.AfterFunc(confirmed, func() { _ = ps.Close() })
	msg, err := ps.Receive(confirmed)
	if !stop() && err == nil {
		err = confirmed.Err() // closed as it answered: start again
	}
	if err == nil {
		if sub, ok := msg.(*redis.Subscription); !ok || sub.Kind != "subscribe" || sub.Channel != channel {
			err = fmt.Errorf("kv: %v instead of the subscription's confirmation", msg)
		}
	}
	if err != nil {
		_ = ps.Close()
		return nil, err
	}
	return ps, nil
}

// Receive hands each message of ps to handle until ctx is done (nil) or
// the subscription is lost (the error why; ps is then of no use: close it
// and Subscribe again). A subscription quiet for idle is pinged, so that a
// dead connection is noticed. handle runs on the caller's goroutine.
func Receive(ctx context.Context, ps *redis.PubSub, idle time.Duration, handle func(*redis.Message)) error {
	stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
	defer stop()
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, idle)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if isTimeout(err) && ps.Ping(ctx) == nil {
				continue
			}
			return err
		}
		if m, ok := msg.(*redis.Message); ok {
			handle(m)
		}
	}
	return nil
}

// isTimeout reports a read that timed out on an idle connection.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
