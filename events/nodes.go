package events

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// A node publishes a frame after its transaction commits. A node that dies
// in between takes the frame with it, and no other node can tell which
// frames were lost; so each node holds a lease in a sorted set (member:
// its id, score: when it last renewed), and the node that finds another's
// lease lapsed removes it and tells every node to resync. A node that
// stops cleanly gives its lease back first: it has published all it had.

// resyncMessage starts the control message that asks every node to
// resync; events on the channel start with an organization id instead.
var resyncMessage = []byte("resync:")

// nodesKey is the sorted set of the nodes' leases.
func (b *Bus) nodesKey() string { return b.channel + ":nodes" }

// startWatch starts watchNodes once. It outlives Run: a node that stops
// receiving may still publish (draining its queues) and keeps its lease
// until Leave.
func (b *Bus) startWatch() {
	b.watchOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		b.stopWatch = cancel
		go b.watchNodes(ctx)
	})
}

// watchNodes renews this node's lease and looks for lapsed ones until ctx
// is done.
func (b *Bus) watchNodes(ctx context.Context) {
	defer close(b.watching)
	tick := time.NewTicker(b.renew)
	defer tick.Stop()
	for {
		b.checkNodes(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Leave gives this node's lease back, after Run has ended and the node
// has published its last frame (a clean stop), so that no node resyncs
// for it.
func (b *Bus) Leave() {
	b.watchOnce.Do(func() {}) // no watch starts after Leave
	if b.stopWatch == nil {
		return
	}
	b.stopWatch()
	select {
	case <-b.watching:
	case <-time.After(5 * time.Second):
		return // still renewing: let the lease lapse instead
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b.rdb.ZRem(ctx, b.nodesKey(), b.node)
}

// checkNodes renews this node's lease and removes lapsed ones, asking for
// a resync once per node found dead.
func (b *Bus) checkNodes(ctx context.Context) {
	now := time.Now()
	key := b.nodesKey()
	if err := b.rdb.ZAdd(ctx, key, redis.Z{Score: float64(now.UnixMilli()), Member: b.node}).Err(); err != nil {
		return // Redis is down: the subscription's loss resyncs already
	}
	lapsed, err := b.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: key, ByScore: true, Start: "-inf", Stop: strconv.FormatInt(now.Add(-b.lease).UnixMilli(), 10),
	}).Result()
	if err != nil {
		return
	}
	for _, node := range lapsed {
		// Of the nodes that see the lapse, the one whose ZREM removes
		// the lease asks for the resync.
		if n, err := b.rdb.ZRem(ctx, key, node).Result(); err == nil && n == 1 {
			b.log.Warn("events: a node stopped renewing its lease; clients are told to resync", "node", node)
			b.rdb.Publish(ctx, b.channel, string(resyncMessage)+" node "+node+" stopped without giving back its lease")
		}
	}
}

// newNodeID names this process among the nodes.
func newNodeID() string { return uuid.NewString() }
