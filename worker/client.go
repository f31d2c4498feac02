package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"
)

// Client enqueues tasks into the prefixed queues a Worker serves, and reports
// queue depths. It is safe for concurrent use.
type Client struct {
	client    *asynq.Client
	inspector *asynq.Inspector
	prefix    string
}

// NewClient returns a client for the Redis connOpt names, using the same
// queuePrefix as the workers. It connects on first use.
func NewClient(connOpt asynq.RedisConnOpt, queuePrefix string) *Client {
	return &Client{
		client:    asynq.NewClient(connOpt),
		inspector: asynq.NewInspector(connOpt),
		prefix:    queuePrefix,
	}
}

// Enqueue adds task to a queue: the one named by an asynq.Queue option among
// opts (an unprefixed name such as QueueCritical), else QueueDefault. Give the
// queue here rather than to asynq.NewTask: a Client cannot see a task's own
// options, and the queue it sets here wins over them.
//
// With asynq.Unique, enqueuing a task equal to one still queued returns an
// error matching asynq.ErrDuplicateTask (errors.Is); callers that enqueue
// idempotently treat it as success.
func (c *Client) Enqueue(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error) {
	queue := QueueDefault
	rest := make([]asynq.Option, 0, len(opts)+1)
	for _, o := range opts {
		if o.Type() == asynq.QueueOpt {
			if name, ok := o.Value().(string); ok {
				queue = name
				continue
			}
		}
		rest = append(rest, o)
	}
	rest = append(rest, asynq.Queue(QueueName(c.prefix, queue)))

	info, err := c.client.EnqueueContext(ctx, task, rest...)
	if err != nil {
		return nil, fmt.Errorf("worker: enqueue %s: %w", task.Type(), err)
	}
	return info, nil
}

// QueueDepths returns, for each of the three standard queues (unprefixed
// names), the number of tasks ready to run and waiting for a worker. Tasks
// scheduled for later, waiting to retry, running or archived are not
// counted. A queue that has never held a task has depth 0.
func (c *Client) QueueDepths(ctx context.Context) (map[string]int, error) {
	existing, err := c.inspector.Queues()
	if err != nil {
		return nil, fmt.Errorf("worker: list queues: %w", err)
	}
	exists := make(map[string]bool, len(existing))
	for _, q := range existing {
		exists[q] = true
	}
	depths := make(map[string]int, 3)
	for _, q := range []string{QueueCritical, QueueDefault, QueueLow} {
		name := QueueName(c.prefix, q)
		if !exists[name] {
			depths[q] = 0
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := c.inspector.GetQueueInfo(name)
		if err != nil {
			return nil, fmt.Errorf("worker: queue %s: %w", q, err)
		}
		depths[q] = info.Pending
	}
	return depths, nil
}

// Close releases the client's connections.
func (c *Client) Close() error {
	return errors.Join(c.client.Close(), c.inspector.Close())
}
