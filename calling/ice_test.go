package calling_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/calling"
	"switchboard/ent/viewer"
)

// TestTURNCredential checks the TURN REST API scheme against vectors
// computed independently (Python's hmac and base64).
func TestTURNCredential(t *testing.T) {
	tests := []struct {
		name, secret, user string
		expiry             int64
		wantUser, wantPass string
	}{
		{"Alice", "north-secret", "alice", 1700000000, "1700000000:alice", "g+jb180fcj+xlpA/2mP60OdIgU0="},
		{"UUIDUser", "turn-shared", "5b0e6a4e-2f1c-4f0e-9c3e-0d8e3c1b7a10", 1700003600,
			"1700003600:5b0e6a4e-2f1c-4f0e-9c3e-0d8e3c1b7a10", "3GC2fmfuP4AafCxOZukRJ/zcR4M="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, p := calling.TURNCredential(tt.secret, tt.user, time.Unix(tt.expiry, 0))
			if u != tt.wantUser || p != tt.wantPass {
				t.Fatalf("TURNCredential = %q, %q; want %q, %q", u, p, tt.wantUser, tt.wantPass)
			}
		})
	}
}

func TestICEServers(t *testing.T) {
	user := uuid.MustParse("5b0e6a4e-2f1c-4f0e-9c3e-0d8e3c1b7a10")
	ctx := viewer.NewContext(context.Background(), &viewer.Viewer{UserID: user, OrgID: uuid.New()})
	now := time.Unix(1700000000, 0)
	stun := []string{"stun:stun.example.com:3478"}
	turn := []string{"turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:5349"}
	tests := []struct {
		name string
		ice  calling.ICEConfig
		want []calling.ICEServer
	}{
		{"STUNOnly", calling.ICEConfig{STUNURLs: stun, TURNTTL: time.Hour}, []calling.ICEServer{{URLs: stun}}},
		{"TURNWithoutSecret", calling.ICEConfig{STUNURLs: stun, TURNURLs: turn, TURNTTL: time.Hour},
			[]calling.ICEServer{{URLs: stun}, {URLs: turn}}},
		{"TURNWithSecret", calling.ICEConfig{STUNURLs: stun, TURNURLs: turn, TURNSecret: "turn-shared", TURNTTL: time.Hour},
			[]calling.ICEServer{{URLs: stun}, {URLs: turn, Username: ptr("1700003600:" + user.String()), Credential: ptr("3GC2fmfuP4AafCxOZukRJ/zcR4M=")}}},
		{"Nothing", calling.ICEConfig{TURNTTL: time.Hour}, []calling.ICEServer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &calling.Service{ICE: tt.ice, Now: func() time.Time { return now }}
			got, err := s.ICEServers(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if len(g.URLs) != len(w.URLs) || deref(g.Username) != deref(w.Username) || deref(g.Credential) != deref(w.Credential) ||
					(g.Username == nil) != (w.Username == nil) || (g.Credential == nil) != (w.Credential == nil) {
					t.Fatalf("server %d = %+v, want %+v", i, g, w)
				}
				for j := range g.URLs {
					if g.URLs[j] != w.URLs[j] {
						t.Fatalf("server %d = %+v, want %+v", i, g, w)
					}
				}
			}
		})
	}
	t.Run("ErrNoUser", func(t *testing.T) {
		s := &calling.Service{ICE: calling.ICEConfig{STUNURLs: stun}}
		if _, err := s.ICEServers(context.Background()); err == nil {
			t.Fatal("ICE servers without a user")
		}
	})
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
