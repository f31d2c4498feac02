// Package worker is the plumbing of background tasks on asynq: a Worker that
// runs handlers registered by other packages, a Client that enqueues tasks,
// and queue depths for /metrics. Tasks live in Redis, so they survive a
// restart of the process (not of the embedded Redis, which is in memory).
//
// Three weighted queues are served: critical (6), default (3) and low (1).
// Every queue name can carry a prefix so that several test packages, or
// several deployments, share one Redis without taking each other's tasks.
//
// The package knows no task types or payloads: those belong to the packages
// that register handlers and enqueue tasks.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
)

// Queue names, before any prefix.
const (
	QueueCritical = "critical"
	QueueDefault  = "default"
	QueueLow      = "low"
)

// DefaultQueues returns the queues served when Options.Queues is nil, with
// their weights: with all three busy, critical gets 60% of the workers'
// time, default 30% and low 10%; none is starved.
func DefaultQueues() map[string]int {
	return map[string]int{QueueCritical: 6, QueueDefault: 3, QueueLow: 1}
}

// Polling intervals. asynq's defaults (1 s and 5 s) make enqueue→processed
// take hundreds of milliseconds; with these it takes a few. Scheduled and
// retried tasks have whole-second granularity in asynq anyway.
const (
	taskCheckInterval        = 50 * time.Millisecond
	delayedTaskCheckInterval = time.Second
	defaultShutdownTimeout   = 30 * time.Second
)

// QueueName returns the Redis-side name of queue under prefix.
func QueueName(prefix, queue string) string {
	if prefix == "" {
		return queue
	}
	return prefix + ":" + queue
}

// Options configures a Worker.
type Options struct {
	// Concurrency is how many tasks run at the same time; zero or less uses
	// the number of CPUs.
	Concurrency int
	// Queues maps queue names (without prefix) to weights; nil serves
	// DefaultQueues.
	Queues map[string]int
	// Logger receives the worker's log; nil discards it.
	Logger *slog.Logger
	// QueuePrefix is put before every queue name; Client must use the same.
	QueuePrefix string
	// RetryDelay decides how long a failed task waits before its next
	// attempt (n is the number of retries so far); it may switch on the
	// task's type. Nil uses asynq's exponential backoff.
	RetryDelay asynq.RetryDelayFunc
	// ShutdownTimeout bounds how long Shutdown waits for running tasks
	// before cancelling their contexts and putting them back in the queue.
	// Zero means 30 seconds.
	ShutdownTimeout time.Duration
}

// Worker runs task handlers. Register handlers with Handle before Start.
type Worker struct {
	srv    *asynq.Server
	mux    *asynq.ServeMux
	logger *slog.Logger
}

// New returns a worker that takes tasks from the queues in opts on the
// Redis connOpt names. It connects when started.
func New(connOpt asynq.RedisConnOpt, opts Options) *Worker {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "worker")

	queues := opts.Queues
	if queues == nil {
		queues = DefaultQueues()
	}
	prefixed := make(map[string]int, len(queues))
	for q, weight := range queues {
		prefixed[QueueName(opts.QueuePrefix, q)] = weight
	}

	shutdownTimeout := opts.ShutdownTimeout
	if shutdownTimeout <= 0 {
		shutdownTimeout = defaultShutdownTimeout
	}
	level := asynq.InfoLevel
	if logger.Enabled(context.Background(), slog.LevelDebug) {
		level = asynq.DebugLevel
	}

	w := &Worker{mux: asynq.NewServeMux(), logger: logger}
	w.srv = asynq.NewServer(connOpt, asynq.Config{
		Concurrency:              opts.Concurrency,
		Queues:                   prefixed,
		RetryDelayFunc:           opts.RetryDelay,
		ErrorHandler:             asynq.ErrorHandlerFunc(w.logFailure),
		Logger:                   asynqLogger{logger},
		LogLevel:                 level,
		ShutdownTimeout:          shutdownTimeout,
		HealthCheckFunc:          w.logHealth,
		TaskCheckInterval:        taskCheckInterval,
		DelayedTaskCheckInterval: delayedTaskCheckInterval,
	})
	return w
}

// Handle registers the handler for a task type. Register every type before
// Start; a task whose type has no handler fails and is retried.
func (w *Worker) Handle(taskType string, h asynq.Handler) {
	w.mux.Handle(taskType, h)
}

// HandleFunc registers a function as the handler for a task type.
func (w *Worker) HandleFunc(taskType string, fn func(context.Context, *asynq.Task) error) {
	w.mux.HandleFunc(taskType, fn)
}

// Start begins processing tasks in the background. It fails if Redis does
// not answer or the worker was started before.
func (w *Worker) Start() error {
	if err := w.srv.Ping(); err != nil {
		return fmt.Errorf("worker: start: %w", err)
	}
	if err := w.srv.Start(w.mux); err != nil {
		return fmt.Errorf("worker: start: %w", err)
	}
	return nil
}

// Shutdown stops taking new tasks and waits for running ones to finish, up
// to Options.ShutdownTimeout; tasks still running then are cancelled and put
// back in their queue for the next start. It does nothing if the worker is
// not running.
func (w *Worker) Shutdown() {
	w.srv.Shutdown()
}

// logFailure records a failed attempt: a warning while retries remain, an
// error when the task is given up (archived).
func (w *Worker) logFailure(ctx context.Context, task *asynq.Task, err error) {
	id, _ := asynq.GetTaskID(ctx)
	queue, _ := asynq.GetQueueName(ctx)
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	level := slog.LevelWarn
	msg := "task failed, will retry"
	if retried >= maxRetry || errors.Is(err, asynq.SkipRetry) {
		level, msg = slog.LevelError, "task failed, giving up"
	}
	w.logger.Log(ctx, level, msg, "task_type", task.Type(), "task_id", id, "queue", queue,
		"retried", retried, "max_retry", maxRetry, "error", err)
}

func (w *Worker) logHealth(err error) {
	if err != nil {
		w.logger.Error("redis health check failed", "error", err)
	}
}

// asynqLogger passes asynq's log to slog. Its methods implement
// asynq.Logger, one per level.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }

// Fatal is called by asynq only for unrecoverable states; asynq expects the
// process to exit, but a library must not decide that, so it logs an error.
func (a asynqLogger) Fatal(args ...any) { a.l.Error("fatal: " + fmt.Sprint(args...)) }
