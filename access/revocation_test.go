package access_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// startNode runs one node's event bus on the Redis at addr and returns
// its revocations. Nothing here verifies sockets again (VerifyAll).
func startNode(t *testing.T, addr string) *access.Revocations {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	bus := events.New(events.Options{Redis: rdb, Channel: "revocation-test", Log: slog.New(slog.DiscardHandler)})
	revs := access.NewRevocations(bus, nil, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); bus.Run(ctx, ready) }()
	t.Cleanup(func() { cancel(); <-done })
	<-ready
	return revs
}

// revoked reports whether s was revoked.
func revoked(s *access.Socket) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// waitRevoked waits until s is revoked, or 10 s.
func waitRevoked(s *access.Socket) bool {
	select {
	case <-s.Done():
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

// TestRevocationsEndTheSocketsTheyName: each kind of revocation ends the
// sockets it names, on the node that publishes it and on every other
// (through Redis), and no other socket.
func TestRevocationsEndTheSocketsTheyName(t *testing.T) {
	mr := miniredis.RunT(t)
	here, there := startNode(t, mr.Addr()), startNode(t, mr.Addr())
	for _, tc := range []struct {
		name  string
		rev   func(user, org, role, session, key uuid.UUID) access.Revocation
		ended []string
	}{
		{"Logout", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndSession(session)
		}, []string{"Session", "OtherOrganization"}},
		{"PasswordChanged", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndUserSessions(user, session)
		}, []string{"OtherSession"}},
		{"PasswordReset", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndUserSessions(user, uuid.Nil)
		}, []string{"Session", "OtherSession", "OtherOrganization"}},
		{"UserDeactivated", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndUser(user)
		}, []string{"Session", "OtherSession", "OtherOrganization", "APIKey"}},
		{"MembershipRemoved", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndMembership(user, org, "removed")
		}, []string{"Session", "OtherSession", "APIKey"}},
		{"RoleEdited", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndRole(role, "edited")
		}, []string{"Session", "OtherSession", "APIKey", "OtherUser"}},
		{"APIKeyRevoked", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.EndAPIKey(key)
		}, []string{"APIKey"}},
		{"NamesNothing", func(user, org, role, session, key uuid.UUID) access.Revocation {
			return access.Revocation{Reason: "nothing"}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user, org, role, session, key := uuid.New(), uuid.New(), uuid.New(), uuid.New(), uuid.New()
			sockets := map[string]viewer.Viewer{
				"Session":      {UserID: user, OrgID: org, RoleID: role, SessionID: session},
				"OtherSession": {UserID: user, OrgID: org, RoleID: role, SessionID: uuid.New()},
				// The same session acting in another organization
				// (X-Organization-ID).
				"OtherOrganization":  {UserID: user, OrgID: uuid.New(), RoleID: uuid.New(), SessionID: session},
				"APIKey":             {UserID: user, OrgID: org, RoleID: role, APIKeyID: key},
				"OtherUser":          {UserID: uuid.New(), OrgID: org, RoleID: role, SessionID: uuid.New()},
				"OtherUserOtherRole": {UserID: uuid.New(), OrgID: org, RoleID: uuid.New(), SessionID: uuid.New()},
			}
			open := map[*access.Socket]string{}
			for _, node := range []*access.Revocations{here, there} {
				for name, v := range sockets {
					s := node.Open(&v)
					t.Cleanup(s.Close)
					open[s] = name
				}
			}
			// A fence: once its revocation reaches there, the one before
			// it has too (a channel's messages keep their order).
			fenceKey := uuid.New()
			fence := there.Open(&viewer.Viewer{UserID: uuid.New(), APIKeyID: fenceKey})
			t.Cleanup(fence.Close)
			here.Publish(context.Background(), tc.rev(user, org, role, session, key))
			here.Publish(context.Background(), access.EndAPIKey(fenceKey))
			if !waitRevoked(fence) {
				t.Fatal("the fence's revocation never arrived")
			}
			for s, name := range open {
				if want := slices.Contains(tc.ended, name); revoked(s) != want {
					t.Errorf("socket %s: revoked %v, want %v", name, revoked(s), want)
				}
			}
		})
	}
}

// TestRevocationsWaitForTheCommit: a revocation published in a
// transaction ends nothing until it commits, and nothing when it rolls
// back (the change did not happen).
func TestRevocationsWaitForTheCommit(t *testing.T) {
	s := newService(t)
	revs := startNode(t, miniredis.RunT(t).Addr())
	for _, commit := range []bool{true, false} {
		user := uuid.New()
		sock := revs.Open(&viewer.Viewer{UserID: user, SessionID: uuid.New()})
		t.Cleanup(sock.Close)
		tx, err := s.Client.Tx(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		revs.Publish(ent.NewTxContext(context.Background(), tx), access.EndUser(user))
		if revoked(sock) {
			t.Fatal("revoked before the commit")
		}
		if commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		if revoked(sock) != commit {
			t.Fatalf("commit %v: revoked %v", commit, revoked(sock))
		}
	}
}
