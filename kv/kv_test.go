package kv_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/kv"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, b := range testkit.RedisBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := b.Store
			key := testenv.Namespace() + ":kv:" + t.Name()

			tests := []struct {
				name  string
				check func(t *testing.T)
			}{
				{"Embedded", func(t *testing.T) {
					if got, want := s.Embedded(), b.URL == ""; got != want {
						t.Errorf("Embedded() = %v, want %v", got, want)
					}
				}},
				{"Ping", func(t *testing.T) {
					if err := s.Ping(ctx); err != nil {
						t.Error(err)
					}
				}},
				{"ClientReadsWrites", func(t *testing.T) {
					if err := s.Client().Set(ctx, key, "v", time.Minute).Err(); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { s.Client().Del(ctx, key) })
					if got, err := s.Client().Get(ctx, key).Result(); err != nil || got != "v" {
						t.Errorf("Get = %q, %v", got, err)
					}
				}},
				{"ConnOptReachesSameServer", func(t *testing.T) {
					if s.Addr() == "" {
						t.Error("Addr() is empty")
					}
					qname := testenv.Namespace() + "-kv-" + b.Name
					c := asynq.NewClient(s.ConnOpt())
					defer c.Close()
					if _, err := c.EnqueueContext(ctx, asynq.NewTask("kv:probe", nil), asynq.Queue(qname)); err != nil {
						t.Fatal(err)
					}
					in := asynq.NewInspector(s.ConnOpt())
					defer in.Close()
					t.Cleanup(func() {
						in := asynq.NewInspector(s.ConnOpt())
						defer in.Close()
						in.DeleteQueue(qname, true)
					})
					info, err := in.GetQueueInfo(qname)
					if err != nil || info.Pending != 1 {
						t.Errorf("queue info = %+v, %v; want 1 pending", info, err)
					}
				}},
				{"KeysExpireWithWallClock", func(t *testing.T) {
					k := key + ":ttl"
					if err := s.Client().Set(ctx, k, "v", 300*time.Millisecond).Err(); err != nil {
						t.Fatal(err)
					}
					testkit.Eventually(t, "the key with a 300 ms TTL to expire", func() bool {
						n, err := s.Client().Exists(ctx, k).Result()
						if err != nil {
							t.Fatal(err)
						}
						return n == 0
					})
				}},
			}
			for _, tt := range tests {
				t.Run(tt.name, tt.check)
			}
		})
	}
}

func TestClose(t *testing.T) {
	for _, b := range testkit.RedisBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s, err := kv.Open(context.Background(), b.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			addr := s.Addr()
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if err := s.Ping(context.Background()); err == nil {
				t.Error("Ping after Close succeeded")
			}
			if b.URL == "" {
				probe := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
				defer probe.Close()
				if err := probe.Ping(context.Background()).Err(); err == nil {
					t.Error("embedded server still answers after Close")
				}
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		url  string
	}{
		{"ErrScheme", "http://127.0.0.1:6379"},
		{"ErrBadDB", "redis://127.0.0.1:6379/notanumber"},
		{"ErrUnreachable", "redis://127.0.0.1:1/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s, err := kv.Open(ctx, tt.url, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Open hung until the deadline: %v", err)
			}
		})
	}
}
