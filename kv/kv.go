// Package kv owns the application's connection to Redis, which backs the job
// queue, caches and rate limits. Given no URL it starts an in-process
// Redis-compatible server (miniredis) so the application runs with no
// external services.
//
// It hands out connections only; what is stored under which key belongs to
// the packages that use them (worker, ratelimit, ...).
package kv

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// clockInterval is how often the embedded server's key expiry is moved on.
const clockInterval = 250 * time.Millisecond

// Store is an open Redis connection: a go-redis client for the application's
// own commands and the connection options for asynq, which opens its own.
type Store struct {
	client  *redis.Client
	connOpt asynq.RedisConnOpt
	addr    string

	embedded *miniredis.Miniredis
	stop     chan struct{}
	ticking  sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Open connects to the Redis at redisURL (redis:// or rediss://) and checks
// that it answers. With an empty redisURL it starts an embedded server on a
// random loopback port instead; its data lives in memory only and is lost on
// Close. A nil logger discards the log.
func Open(ctx context.Context, redisURL string, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if redisURL == "" {
		return openEmbedded(ctx, logger)
	}

	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("kv: REDIS_URL: %w", err)
	}
	s := &Store{
		client:  redis.NewClient(opts),
		connOpt: asynqOpt(opts),
		addr:    opts.Addr,
	}
	if err := s.Ping(ctx); err != nil {
		s.client.Close()
		return nil, err
	}
	logger.Info("connected to redis", "addr", opts.Addr, "db", opts.DB, "tls", opts.TLSConfig != nil)
	return s, nil
}

func openEmbedded(ctx context.Context, logger *slog.Logger) (*Store, error) {
	m := miniredis.NewMiniRedis()
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("kv: start embedded redis: %w", err)
	}
	opts := &redis.Options{Addr: m.Addr()}
	s := &Store{
		client:   redis.NewClient(opts),
		connOpt:  asynqOpt(opts),
		addr:     m.Addr(),
		embedded: m,
		stop:     make(chan struct{}),
	}
	s.ticking.Add(1)
	go s.tick()
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	logger.Info("started embedded redis; its data is kept in memory only", "addr", m.Addr())
	return s, nil
}

// tick moves the embedded server's expiry clock with real time: miniredis
// only expires keys when told that time has passed, and asynq's unique locks
// and the rate limiter's windows rely on expiry.
func (s *Store) tick() {
	defer s.ticking.Done()
	t := time.NewTicker(clockInterval)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.embedded.FastForward(now.Sub(last))
			last = now
		}
	}
}

// asynqOpt translates go-redis options into asynq's, so that the queue uses
// the same server, database, credentials and TLS settings.
func asynqOpt(o *redis.Options) asynq.RedisClientOpt {
	return asynq.RedisClientOpt{
		Network:      o.Network,
		Addr:         o.Addr,
		Username:     o.Username,
		Password:     o.Password,
		DB:           o.DB,
		DialTimeout:  o.DialTimeout,
		ReadTimeout:  o.ReadTimeout,
		WriteTimeout: o.WriteTimeout,
		PoolSize:     o.PoolSize,
		TLSConfig:    o.TLSConfig,
	}
}

// Client returns the shared go-redis client. It is closed by Close.
func (s *Store) Client() *redis.Client { return s.client }

// ConnOpt returns the options asynq clients, servers and inspectors use to
// open their own connections to the same Redis.
func (s *Store) ConnOpt() asynq.RedisConnOpt { return s.connOpt }

// Addr returns the host:port of the Redis in use.
func (s *Store) Addr() string { return s.addr }

// Embedded reports whether the Redis is the in-process server.
func (s *Store) Embedded() bool { return s.embedded != nil }

// Ping checks that Redis answers, for the health endpoint.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("kv: ping redis at %s: %w", s.addr, err)
	}
	return nil
}

// Close closes the client and, for the embedded server, stops it. Close it
// after everything that uses ConnOpt (worker, asynq clients) has shut down.
// Later calls return the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.client.Close()
		if s.embedded != nil {
			close(s.stop)
			s.ticking.Wait()
			s.embedded.Close()
		}
	})
	return s.closeErr
}
