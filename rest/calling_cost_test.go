package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"switchboard/ent/calllog"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// TestCallListCost: call log and transfer lists, with the names and edges
// they show, cost as many statements for 20 rows as for 2.
func TestCallListCost(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	db := env.Client()
	flow := db.IVRFlow.Create().SetChatAccount("Main").SetName("Front").SaveX(ctx)
	start := time.Now().Add(-time.Hour)
	for i := range 24 {
		c := db.Contact.Create().SetPhoneNumber(fmt.Sprintf("1555020%04d", i)).SetProfileName(fmt.Sprintf("C %d", i)).SaveX(ctx)
		l := db.CallLog.Create().SetChatAccount("Main").SetChatCallID(fmt.Sprintf("wacid.%d", i)).SetContactID(c.ID).
			SetDirection(calllog.DirectionIncoming).SetAgentID(env.Admin.UserID).SetIvrFlowID(flow.ID).
			SetStartedAt(start.Add(time.Duration(i) * time.Second)).SaveX(ctx)
		db.CallTransfer.Create().SetCallLogID(l.ID).SetAgentID(env.Admin.UserID).ExecX(ctx)
	}
	least := func(method, path string, body func(n int) any, n int) int64 {
		var b any
		if body != nil {
			b = body(n)
		}
		return env.Admin.FewestStatements(t, method, path, b)
	}
	for name, tc := range map[string]struct {
		method string
		path   func(n int) string
		body   func(n int) any
	}{
		"REST call logs":      {http.MethodGet, func(n int) string { return fmt.Sprintf("/api/call-logs?limit=%d", n) }, nil},
		"REST call transfers": {http.MethodGet, func(n int) string { return fmt.Sprintf("/api/call-transfers?limit=%d", n) }, nil},
		"GraphQL callLogs": {http.MethodPost, func(int) string { return "/graphql" }, func(n int) any {
			return map[string]any{"query": `query($n: Int) { callLogs(limit: $n) { total callLogs { id transfers { id agentID } } } }`,
				"variables": map[string]any{"n": n}}
		}},
		"GraphQL callTransfers": {http.MethodPost, func(int) string { return "/graphql" }, func(n int) any {
			return map[string]any{"query": `query($n: Int) { callTransfers(limit: $n) { callTransfers { id callLog { id callerPhone } } } }`,
				"variables": map[string]any{"n": n}}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			small, large := least(tc.method, tc.path(2), tc.body, 2), least(tc.method, tc.path(20), tc.body, 20)
			if large != small {
				t.Errorf("%d statements for 2 rows, %d for 20", small, large)
			}
		})
	}
}
