package worker_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/kv"
	"switchboard/worker"
)

// wait bounds every wait for a task; the tests assert outcomes, not speed.
const wait = 10 * time.Second

var prefixSeq atomic.Int64

// NewPrefix returns a queue prefix no other test uses, and removes its queues
// and statistics from the shared Redis when the test ends (after the worker
// has stopped).
func NewPrefix(t *testing.T, store *kv.Store) string {
	t.Helper()
	prefix := fmt.Sprintf("%s-w%d", testenv.Namespace(), prefixSeq.Add(1))
	t.Cleanup(func() {
		in := asynq.NewInspector(store.ConnOpt())
		defer in.Close()
		for q := range maps.Keys(worker.DefaultQueues()) {
			in.DeleteQueue(worker.QueueName(prefix, q), true)
		}
		ctx := context.Background()
		keys := store.Client().Scan(ctx, 0, "asynq:{"+prefix+":*", 100).Iterator()
		for keys.Next(ctx) {
			store.Client().Del(ctx, keys.Val())
		}
	})
	return prefix
}

// MustStart starts a worker running handlers and shuts it down when the
// test ends.
func MustStart(t *testing.T, connOpt asynq.RedisConnOpt, opts worker.Options, handlers map[string]asynq.HandlerFunc) *worker.Worker {
	t.Helper()
	w := worker.New(connOpt, opts)
	for taskType, h := range handlers {
		w.Handle(taskType, h)
	}
	if err := w.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(w.Shutdown)
	return w
}

// MustClient returns a client closed when the test ends.
func MustClient(t *testing.T, connOpt asynq.RedisConnOpt, prefix string) *worker.Client {
	t.Helper()
	c := worker.NewClient(connOpt, prefix)
	t.Cleanup(func() { c.Close() })
	return c
}

// MustEnqueue enqueues task or fails the test.
func MustEnqueue(t *testing.T, c *worker.Client, task *asynq.Task, opts ...asynq.Option) *asynq.TaskInfo {
	t.Helper()
	info, err := c.Enqueue(context.Background(), task, opts...)
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	return info
}

// receive waits for a value from ch, failing the test after the bound.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("%s: nothing after %s", what, wait)
		panic("unreachable")
	}
}

// processed is what a test handler saw.
type processed struct {
	payload string
	queue   string
	retried int
	at      time.Time
}

// recorder returns a handler reporting each task it runs on the channel.
func recorder(ch chan<- processed) asynq.HandlerFunc {
	return func(ctx context.Context, task *asynq.Task) error {
		queue, _ := asynq.GetQueueName(ctx)
		retried, _ := asynq.GetRetryCount(ctx)
		ch <- processed{string(task.Payload()), queue, retried, time.Now()}
		return nil
	}
}

func TestWorker(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, store *kv.Store)
	}{
		{"EnqueuedTaskIsProcessed", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			got := make(chan processed, 1)
			MustStart(t, connOpt, worker.Options{QueuePrefix: prefix, Concurrency: 2}, map[string]asynq.HandlerFunc{"test:echo": recorder(got)})

			info := MustEnqueue(t, MustClient(t, connOpt, prefix), asynq.NewTask("test:echo", []byte("hello")))
			if want := worker.QueueName(prefix, worker.QueueDefault); info.Queue != want {
				t.Errorf("enqueued into %q, want %q", info.Queue, want)
			}
			if p := receive(t, got, "processed"); p.payload != "hello" {
				t.Errorf("payload = %q", p.payload)
			}
		}},
		{"QueueOptionIsPrefixed", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			got := make(chan processed, 2)
			MustStart(t, connOpt, worker.Options{QueuePrefix: prefix}, map[string]asynq.HandlerFunc{"test:echo": recorder(got)})

			c := MustClient(t, connOpt, prefix)
			for _, q := range []string{worker.QueueCritical, worker.QueueLow} {
				MustEnqueue(t, c, asynq.NewTask("test:echo", []byte(q)), asynq.Queue(q))
			}
			seen := map[string]string{}
			for range 2 {
				p := receive(t, got, "processed")
				seen[p.payload] = p.queue
			}
			for _, q := range []string{worker.QueueCritical, worker.QueueLow} {
				if want := worker.QueueName(prefix, q); seen[q] != want {
					t.Errorf("task for %s ran from queue %q, want %q", q, seen[q], want)
				}
			}
		}},
		{"FailingTaskIsRetriedThenSucceeds", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			var attempts atomic.Int64
			got := make(chan processed, 1)
			ok := recorder(got)
			MustStart(t, connOpt, worker.Options{
				QueuePrefix: prefix,
				RetryDelay:  func(int, error, *asynq.Task) time.Duration { return 0 },
			}, map[string]asynq.HandlerFunc{"test:flaky": func(ctx context.Context, task *asynq.Task) error {
				if attempts.Add(1) <= 2 {
					return errors.New("transient failure")
				}
				return ok(ctx, task)
			}})

			MustEnqueue(t, MustClient(t, connOpt, prefix), asynq.NewTask("test:flaky", nil), asynq.MaxRetry(5))
			if p := receive(t, got, "succeeded"); p.retried != 2 || attempts.Load() != 3 {
				t.Errorf("succeeded after %d retries and %d attempts, want 2 and 3", p.retried, attempts.Load())
			}
		}},
		{"ScheduledTaskRunsAfterItsTime", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			got := make(chan processed, 1)
			MustStart(t, connOpt, worker.Options{QueuePrefix: prefix}, map[string]asynq.HandlerFunc{"test:later": recorder(got)})

			info := MustEnqueue(t, MustClient(t, connOpt, prefix), asynq.NewTask("test:later", nil), asynq.ProcessIn(time.Second))
			if info.State != asynq.TaskStateScheduled {
				t.Errorf("state after enqueue = %v, want scheduled", info.State)
			}
			p := receive(t, got, "scheduled task")
			// asynq schedules with whole-second granularity: a task due at
			// x.7s may start at x.0s, never before.
			if due := info.NextProcessAt.Truncate(time.Second); p.at.Before(due) {
				t.Errorf("ran at %s, before its time %s", p.at, due)
			}
		}},
		{"UniqueTaskIsDeduplicated", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			c := MustClient(t, connOpt, prefix)
			// Scheduled far ahead so the first copy is still queued (asynq
			// releases the lock once a unique task succeeds).
			opts := []asynq.Option{asynq.Unique(time.Hour), asynq.ProcessIn(time.Hour)}
			MustEnqueue(t, c, asynq.NewTask("test:unique", []byte("a")), opts...)

			_, err := c.Enqueue(context.Background(), asynq.NewTask("test:unique", []byte("a")), opts...)
			if !errors.Is(err, asynq.ErrDuplicateTask) {
				t.Errorf("second Enqueue = %v, want ErrDuplicateTask", err)
			}
			if _, err := c.Enqueue(context.Background(), asynq.NewTask("test:unique", []byte("b")), opts...); err != nil {
				t.Errorf("different payload: %v", err)
			}
		}},
		{"ShutdownDrainsRunningTask", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			started := make(chan struct{})
			var finished atomic.Bool
			w := MustStart(t, connOpt, worker.Options{QueuePrefix: prefix}, map[string]asynq.HandlerFunc{"test:slow": func(ctx context.Context, _ *asynq.Task) error {
				close(started)
				select {
				case <-time.After(300 * time.Millisecond):
					finished.Store(true)
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}})
			MustEnqueue(t, MustClient(t, connOpt, prefix), asynq.NewTask("test:slow", nil))
			receive(t, started, "task started")
			w.Shutdown()
			if !finished.Load() {
				t.Error("Shutdown returned before the running task finished")
			}
		}},
		{"QueueDepths", func(t *testing.T, store *kv.Store) {
			connOpt, prefix := store.ConnOpt(), NewPrefix(t, store)
			c := MustClient(t, connOpt, prefix)
			ctx := context.Background()

			depths, err := c.QueueDepths(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"critical": 0, "default": 0, "low": 0}; !maps.Equal(depths, want) {
				t.Errorf("before any task: %v, want %v", depths, want)
			}

			MustEnqueue(t, c, asynq.NewTask("test:depth", []byte("1")))
			MustEnqueue(t, c, asynq.NewTask("test:depth", []byte("2")))
			MustEnqueue(t, c, asynq.NewTask("test:depth", nil), asynq.Queue(worker.QueueLow))
			MustEnqueue(t, c, asynq.NewTask("test:depth", nil), asynq.Queue(worker.QueueCritical), asynq.ProcessIn(time.Hour))
			depths, err = c.QueueDepths(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"critical": 0, "default": 2, "low": 1}; !maps.Equal(depths, want) {
				t.Errorf("depths = %v, want %v (scheduled tasks are not counted)", depths, want)
			}
		}},
	}
	for _, be := range testkit.RedisBackends(t) {
		store := be.Store
		t.Run(be.Name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.run(t, store)
				})
			}
		})
	}
}

func TestStart(t *testing.T) {
	tests := []struct {
		name    string
		connOpt func(t *testing.T) asynq.RedisConnOpt
		twice   bool
	}{
		{"ErrRedisUnreachable", func(t *testing.T) asynq.RedisConnOpt { return asynq.RedisClientOpt{Addr: "127.0.0.1:1"} }, false},
		{"ErrStartedTwice", func(t *testing.T) asynq.RedisConnOpt { return testkit.MustOpenKV(t, "").ConnOpt() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := worker.New(tt.connOpt(t), worker.Options{QueuePrefix: testenv.Namespace()})
			defer w.Shutdown()
			err := w.Start()
			if tt.twice {
				if err != nil {
					t.Fatalf("first Start: %v", err)
				}
				err = w.Start()
			}
			if err == nil {
				t.Error("Start succeeded")
			}
		})
	}
}

func TestQueueName(t *testing.T) {
	tests := []struct{ name, prefix, queue, want string }{
		{"NoPrefix", "", "critical", "critical"},
		{"Prefix", "t1a2b", "low", "t1a2b:low"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := worker.QueueName(tt.prefix, tt.queue); got != tt.want {
				t.Errorf("QueueName(%q, %q) = %q, want %q", tt.prefix, tt.queue, got, tt.want)
			}
		})
	}
}
