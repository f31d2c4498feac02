package rest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/app"
	"switchboard/calling/media/mediatest"
	"switchboard/ent/account"
)

// controlsDelivered waits until every node has handled the control
// messages published before the call: it publishes a probe after them and
// waits for it on each node. Redis delivers a channel's messages in the
// order it received them, and a node handles them one at a time.
func controlsDelivered(t *testing.T, nodes ...*app.App) {
	t.Helper()
	name := "probe_" + uuid.NewString()[:8]
	got := make(chan struct{}, len(nodes))
	for _, n := range nodes {
		n.Events.OnControl(name, func([]byte) { got <- struct{}{} })
	}
	nodes[0].Events.PublishControl(t.Context(), name, nil)
	deadline := time.After(10 * time.Second)
	for range nodes {
		select {
		case <-got:
		case <-deadline:
			t.Fatal("a node did not get the probe control message")
		}
	}
}

// TestCallsSeeAccountChangesAtOnce: calling switched off (or on) for an
// account through one node applies to the next call whichever node
// acknowledges and drains it: the change is announced to every node, each
// drops its cached accounts, instead of answering with the old account
// for up to five seconds.
func TestCallsSeeAccountChangesAtOnce(t *testing.T) {
	tests := []struct {
		name          string
		before, after bool
		// first and then are the platform actions the calls get.
		first, then string
	}{
		{"SwitchedOff", true, false, "pre_accept", "reject"},
		{"SwitchedOn", false, true, "reject", "pre_accept"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCallEnv(t)
			peerApp, peerSrv := e.Peer()
			acc, err := e.Client().Account.Query().Where(account.Name("Main")).Only(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			setCalling := func(base string, on bool) {
				t.Helper()
				status, body := doAt(t, base, e.Admin.Token, http.MethodPut, "/api/accounts/"+acc.ID.String(),
					map[string]any{"business_calling_enabled": on})
				if status != http.StatusOK {
					t.Fatalf("update account: %d %v", status, body)
				}
			}
			setCalling(e.Server.URL, tt.before)
			// The first call fills the account caches of the nodes that
			// acknowledge and drain it.
			first := fmt.Sprintf("wacid.accounts.%d.first", i)
			e.ring(t, first, fmt.Sprintf("155500000%02d", 70+2*i), mediatest.NewPeer(t).Offer())
			e.fake.WaitCallAction(t, first, tt.first, 10*time.Second)

			setCalling(peerSrv.URL, tt.after)
			controlsDelivered(t, e.App, peerApp)
			then := fmt.Sprintf("wacid.accounts.%d.then", i)
			e.ring(t, then, fmt.Sprintf("155500000%02d", 71+2*i), mediatest.NewPeer(t).Offer())
			e.fake.WaitCallAction(t, then, tt.then, 10*time.Second)
			if n := e.fake.CallRequests(then, tt.first); n != 0 {
				t.Fatalf("the call after the change got %d %s, as the old account would", n, tt.first)
			}
		})
	}
}
