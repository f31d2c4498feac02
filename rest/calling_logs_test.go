package rest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/calling"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/calltransfer"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

var (
	callLogKeys = []string{"id", "organization_id", "chat_account", "contact_id", "chat_call_id", "caller_phone", "direction",
		"status", "duration", "ivr_flow_id", "agent_id", "started_at", "answered_at", "ended_at", "disconnected_by",
		"recording_storage_key", "recording_duration", "contact_name", "agent_name"}
	callTransferKeys = []string{"id", "organization_id", "call_log_id", "chat_call_id", "caller_phone", "contact_id",
		"chat_account", "status", "team_id", "transferred_at", "agent_id", "connected_at", "completed_at",
		"hold_duration", "talk_duration"}
)

// callFixture is an organization's seeded calls: live calls are the call
// manager's, so the rows are written directly.
type callFixture struct {
	env                 *apitest.Env
	ctx                 context.Context
	agentA, agentB, mgr *apitest.Client
	other               *apitest.Client
	contact             *ent.Contact
	flow                *ent.IVRFlow
	l1, l2, l3          *ent.CallLog
	t1, t2, t3, t4, t5  *ent.CallTransfer
	recording           []byte
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func newCallFixture(t *testing.T, settings ...apitest.Setting) *callFixture {
	t.Helper()
	env := apitest.New(t, settings...)
	f := &callFixture{env: env, ctx: viewer.SystemContext(context.Background(), env.OrgID)}
	f.agentA, f.agentB = env.NewUser(env.OrgID, access.RoleAgent), env.NewUser(env.OrgID, access.RoleAgent)
	f.mgr, f.other = env.NewUser(env.OrgID, access.RoleManager), env.NewOrg("Elsewhere")
	// Days are read in the organization's zone: +05:30.
	env.Admin.Do(http.MethodPut, "/api/org/settings", map[string]any{"timezone": "Asia/Kolkata"}).ExpectStatus(t, http.StatusOK)
	db := env.Client()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	f.contact, err = db.Contact.Create().SetPhoneNumber("15550001111").SetProfileName("Ann").Save(f.ctx)
	must(err)
	f.flow, err = db.IVRFlow.Create().SetChatAccount("Main").SetName("Front").Save(f.ctx)
	must(err)
	teamA, err := db.Team.Create().SetName("Sales").Save(f.ctx)
	must(err)
	teamB, err := db.Team.Create().SetName("Support").Save(f.ctx)
	must(err)
	must(db.TeamMember.Create().SetTeamID(teamA.ID).SetUserID(f.agentA.UserID).Exec(f.ctx))

	answered, ended := at("2026-03-10T20:00:05Z"), at("2026-03-10T20:03:05Z")
	f.l1, err = db.CallLog.Create().SetChatAccount("Main").SetChatCallID("wacid.1").SetCallerPhone("+1555%0001").
		SetContactID(f.contact.ID).SetDirection(calllog.DirectionIncoming).SetStatus(calllog.StatusCompleted).
		SetDuration(180).SetIvrFlowID(f.flow.ID).SetAgentID(f.agentA.UserID).SetStartedAt(at("2026-03-10T20:00:00Z")).
		SetAnsweredAt(answered).SetEndedAt(ended).SetDisconnectedBy("client").SetRecordingDuration(42).Save(f.ctx)
	must(err)
	key := calling.RecordingKey(env.OrgID, f.l1.ID)
	f.l1, err = f.l1.Update().SetRecordingStorageKey(key).Save(f.ctx)
	must(err)
	f.recording = make([]byte, 4096)
	_, _ = rand.Read(f.recording)
	must(env.App.Resolver.Calling.Recordings.Put(key, bytesReader(f.recording)))
	f.l2, err = db.CallLog.Create().SetChatAccount("Second").SetChatCallID("wacid.2").SetCallerPhone("15550002222").
		SetDirection(calllog.DirectionOutgoing).SetStatus(calllog.StatusMissed).SetAgentID(f.agentB.UserID).
		SetStartedAt(at("2026-03-10T10:00:00Z")).Save(f.ctx)
	must(err)
	f.l3, err = db.CallLog.Create().SetChatAccount("Main").SetChatCallID("wacid.3").SetCallerPhone("15551112222").
		SetDirection(calllog.DirectionIncoming).SetStatus(calllog.StatusAnswered).SetStartedAt(at("2026-03-12T00:00:00Z")).Save(f.ctx)
	must(err)

	transfer := func(l *ent.CallLog, st calltransfer.Status, team, agent *uuid.UUID, when string) *ent.CallTransfer {
		tr, err := db.CallTransfer.Create().SetCallLogID(l.ID).SetChatCallID(l.ChatCallID).SetCallerPhone(l.CallerPhone).
			SetChatAccount(l.ChatAccount).SetStatus(st).SetNillableTeamID(team).SetNillableAgentID(agent).
			SetTransferredAt(at(when)).Save(f.ctx)
		must(err)
		return tr
	}
	f.t1 = transfer(f.l1, calltransfer.StatusCompleted, &teamA.ID, &f.agentA.UserID, "2026-03-10T20:00:30Z")
	f.t1, err = f.t1.Update().SetConnectedAt(at("2026-03-10T20:00:40Z")).SetCompletedAt(ended).
		SetHoldDuration(10).SetTalkDuration(145).Save(f.ctx)
	must(err)
	f.t2 = transfer(f.l3, calltransfer.StatusWaiting, &teamA.ID, nil, "2026-03-12T00:00:10Z")
	f.t3 = transfer(f.l3, calltransfer.StatusWaiting, &teamB.ID, nil, "2026-03-12T00:00:20Z")
	f.t4 = transfer(f.l2, calltransfer.StatusConnected, nil, &f.agentB.UserID, "2026-03-10T10:00:10Z")
	f.t5 = transfer(f.l3, calltransfer.StatusWaiting, nil, nil, "2026-03-12T00:00:30Z")
	return f
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// ids lists the ids of the objects of a list.
func ids(res *apitest.Response, path string) []string {
	items, _ := res.Get(path).([]any)
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it.(map[string]any)["id"].(string)
	}
	return out
}

func expectIDs(t *testing.T, res *apitest.Response, path string, want ...uuid.UUID) {
	t.Helper()
	got := ids(res, path)
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v\n%s", path, got, want, res.Raw)
	}
	for i := range want {
		if got[i] != want[i].String() {
			t.Fatalf("%s: got %v, want %v\n%s", path, got, want, res.Raw)
		}
	}
}

func TestCallLogs(t *testing.T) {
	f := newCallFixture(t)
	admin := f.env.Admin

	t.Run("Visibility", func(t *testing.T) {
		for name, tc := range map[string]struct {
			c    *apitest.Client
			want []uuid.UUID
		}{
			"Admin":    {admin, []uuid.UUID{f.l3.ID, f.l1.ID, f.l2.ID}},
			"Manager":  {f.mgr, []uuid.UUID{f.l3.ID, f.l1.ID, f.l2.ID}},
			"AgentA":   {f.agentA, []uuid.UUID{f.l1.ID}},
			"AgentB":   {f.agentB, []uuid.UUID{f.l2.ID}},
			"OtherOrg": {f.other, nil},
		} {
			t.Run(name, func(t *testing.T) {
				res := tc.c.Do(http.MethodGet, "/api/call-logs", nil).ExpectStatus(t, http.StatusOK)
				expectIDs(t, res, "data.call_logs", tc.want...)
				if res.Number("data.total") != float64(len(tc.want)) || res.Number("data.limit") != 50 {
					t.Fatalf("page: %s", res.Raw)
				}
			})
		}
	})
	t.Run("Shape", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/call-logs?limit=1&page=2", nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data.call_logs.0", callLogKeys...)
		if res.String("data.call_logs.0.id") != f.l1.ID.String() || res.String("data.call_logs.0.contact_name") != "Ann" ||
			res.String("data.call_logs.0.agent_name") != "Agent User" || res.String("data.call_logs.0.ivr_flow_name") != "Front" ||
			res.String("data.call_logs.0.contact.profile_name") != "Ann" || res.String("data.call_logs.0.agent.full_name") != "Agent User" ||
			res.Number("data.call_logs.0.recording_duration") != 42 || res.String("data.call_logs.0.disconnected_by") != "client" ||
			res.Number("data.total") != 3 || res.Number("data.page") != 2 {
			t.Fatalf("call log: %s", res.Raw)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		for name, tc := range map[string]struct {
			query string
			want  []uuid.UUID
		}{
			"Status":              {"status=completed", []uuid.UUID{f.l1.ID}},
			"Direction":           {"direction=outgoing", []uuid.UUID{f.l2.ID}},
			"Account":             {"account=Second", []uuid.UUID{f.l2.ID}},
			"Contact":             {"contact_id=" + f.contact.ID.String(), []uuid.UUID{f.l1.ID}},
			"IVRFlow":             {"ivr_flow_id=" + f.flow.ID.String(), []uuid.UUID{f.l1.ID}},
			"PhonePart":           {"phone=5550002", []uuid.UUID{f.l2.ID}},
			"PhonePercentLiteral": {"phone=" + url.QueryEscape("%"), []uuid.UUID{f.l1.ID}},
			"PhoneUnderscore":     {"phone=_", nil},
			"StartDateInZone":     {"start_date=2026-03-11", []uuid.UUID{f.l3.ID, f.l1.ID}},
			"EndDateInZone":       {"end_date=2026-03-10", []uuid.UUID{f.l2.ID}},
			"OneDay":              {"start_date=2026-03-11&end_date=2026-03-11", []uuid.UUID{f.l1.ID}},
			"Combined":            {"direction=incoming&account=Main&status=answered", []uuid.UUID{f.l3.ID}},
		} {
			t.Run(name, func(t *testing.T) {
				res := admin.Do(http.MethodGet, "/api/call-logs?"+tc.query, nil).ExpectStatus(t, http.StatusOK)
				expectIDs(t, res, "data.call_logs", tc.want...)
			})
		}
		// The rule applies under every filter.
		res := f.agentA.Do(http.MethodGet, "/api/call-logs?account=Second", nil).ExpectStatus(t, http.StatusOK)
		expectIDs(t, res, "data.call_logs")
	})
	t.Run("BadFilters", func(t *testing.T) {
		for name, q := range map[string]string{
			"ErrStatus":    "status=bogus",
			"ErrDirection": "direction=sideways",
			"ErrContactID": "contact_id=abc",
			"ErrIVRFlowID": "ivr_flow_id=abc",
			"ErrStartDate": "start_date=2026-13-01",
			"ErrEndDate":   "end_date=11/03/2026",
			"ErrReversed":  "start_date=2026-03-12&end_date=2026-03-11",
			"ErrPage":      "page=0",
			"ErrLimit":     "limit=-1",
		} {
			t.Run(name, func(t *testing.T) {
				admin.Do(http.MethodGet, "/api/call-logs?"+q, nil).ExpectError(t, http.StatusBadRequest)
			})
		}
	})
	t.Run("Detail", func(t *testing.T) {
		res := f.agentA.Do(http.MethodGet, "/api/call-logs/"+f.l1.ID.String(), nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data.call_log", callLogKeys...)
		expectKeys(t, res, "data.transfers.0", callTransferKeys...)
		if res.String("data.call_log.id") != f.l1.ID.String() || res.Len("data.transfers") != 1 ||
			res.String("data.transfers.0.agent_id") != f.agentA.UserID.String() || res.Number("data.transfers.0.hold_duration") != 10 ||
			res.Number("data.transfers.0.talk_duration") != 145 || res.Get("data.transfers.0.connected_at") == nil {
			t.Fatalf("detail: %s", res.Raw)
		}
		res = admin.Do(http.MethodGet, "/api/call-logs/"+f.l3.ID.String(), nil).ExpectStatus(t, http.StatusOK)
		expectIDs(t, res, "data.transfers", f.t2.ID, f.t3.ID, f.t5.ID)
		if res.Get("data.call_log.agent_id") != nil || res.Get("data.call_log.contact") != nil {
			t.Fatalf("no agent, no contact: %s", res.Raw)
		}
		f.agentA.Do(http.MethodGet, "/api/call-logs/"+f.l2.ID.String(), nil).ExpectError(t, http.StatusNotFound)
		f.agentB.Do(http.MethodGet, "/api/call-logs/"+f.l1.ID.String(), nil).ExpectError(t, http.StatusNotFound)
		f.other.Do(http.MethodGet, "/api/call-logs/"+f.l1.ID.String(), nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/call-logs/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/call-logs/nope", nil).ExpectError(t, http.StatusBadRequest)
		f.env.Anonymous().Do(http.MethodGet, "/api/call-logs", nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := f.agentA.GraphQL(`query { callLogs { total callLogs { id status agentID } } }`, nil)
		if res.Number("data.callLogs.total") != 1 || res.String("data.callLogs.callLogs.0.id") != f.l1.ID.String() {
			t.Fatalf("callLogs: %s", res.Raw)
		}
		res = admin.GraphQL(`query($f: CallLogFilter) { callLogs(filter: $f, limit: 10) { total callLogs { id } } }`,
			map[string]any{"f": map[string]any{"direction": "incoming", "startDate": "2026-03-11"}})
		if res.Number("data.callLogs.total") != 2 {
			t.Fatalf("callLogs filtered: %s", res.Raw)
		}
		res = admin.GraphQL(`query { callLogs(filter: {status: "bogus"}) { total } }`, nil)
		if res.GraphQLErrorCode() != "invalid" {
			t.Fatalf("bad filter: %s", res.Raw)
		}
		res = f.agentA.GraphQL(`query($id: ID!) { callLog(id: $id) { id transfers { id status agentID holdDuration talkDuration } } }`,
			map[string]any{"id": f.l1.ID})
		if res.String("data.callLog.transfers.0.id") != f.t1.ID.String() || res.Number("data.callLog.transfers.0.talkDuration") != 145 {
			t.Fatalf("callLog: %s", res.Raw)
		}
		res = f.agentA.GraphQL(`query($id: ID!) { callLog(id: $id) { id } }`, map[string]any{"id": f.l2.ID})
		if res.GraphQLErrorCode() != "not_found" {
			t.Fatalf("another agent's log: %s", res.Raw)
		}
	})
	t.Run("GraphQLNode", func(t *testing.T) {
		node := `query($id: ID!) { node(id: $id) { id ... on CallLog { callStatus: status } ... on CallTransfer { transferStatus: status } } }`
		for name, tc := range map[string]struct {
			c       *apitest.Client
			id      uuid.UUID
			visible bool
		}{
			"OwnLog":              {f.agentA, f.l1.ID, true},
			"OtherAgentsLog":      {f.agentA, f.l2.ID, false},
			"ManagerAnyLog":       {f.mgr, f.l2.ID, true},
			"TeamWaitingTransfer": {f.agentA, f.t2.ID, true},
			"OtherTeamsTransfer":  {f.agentA, f.t3.ID, false},
			"OtherOrg":            {f.other, f.l1.ID, false},
		} {
			t.Run(name, func(t *testing.T) {
				res := tc.c.GraphQL(node, map[string]any{"id": tc.id})
				if got := res.String("data.node.id") == tc.id.String(); got != tc.visible {
					t.Fatalf("visible %v, want %v: %s", got, tc.visible, res.Raw)
				}
				if !tc.visible && res.GraphQLErrorCode() != "not_found" {
					t.Fatalf("want not_found: %s", res.Raw)
				}
			})
		}
	})
}

func TestCallRecordings(t *testing.T) {
	f := newCallFixture(t)
	admin := f.env.Admin
	get := func(t *testing.T, link string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, f.env.Server.URL+u.RequestURI(), nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}

	res := f.agentA.Do(http.MethodGet, "/api/call-logs/"+f.l1.ID.String()+"/recording", nil).ExpectStatus(t, http.StatusOK)
	link := res.String("data.url")
	if res.Number("data.duration") != 42 {
		t.Fatalf("recording: %s", res.Raw)
	}
	u, _ := url.Parse(link)
	if u.Scheme+"://"+u.Host != "http://localhost:8080" || u.Query().Get("expires") == "" || u.Query().Get("signature") == "" {
		t.Fatalf("the link is not under PUBLIC_URL: %s", link)
	}

	t.Run("Valid", func(t *testing.T) {
		resp, body := get(t, link, nil)
		if resp.StatusCode != http.StatusOK || string(body) != string(f.recording) || resp.Header.Get("Content-Type") != "audio/ogg" {
			t.Fatalf("GET recording: %d %s, %d bytes", resp.StatusCode, resp.Header, len(body))
		}
	})
	t.Run("Range", func(t *testing.T) {
		resp, body := get(t, link, map[string]string{"Range": "bytes=100-199"})
		if resp.StatusCode != http.StatusPartialContent || string(body) != string(f.recording[100:200]) {
			t.Fatalf("range: %d, %d bytes", resp.StatusCode, len(body))
		}
	})
	t.Run("Expired", func(t *testing.T) {
		old := f.env.App.Resolver.Calling.RecordingURLs.Sign(f.l1.RecordingStorageKey, time.Now().Add(-time.Second))
		if resp, _ := get(t, old, nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("expired link: %d", resp.StatusCode)
		}
	})
	t.Run("Tampered", func(t *testing.T) {
		q := u.Query()
		q.Set("expires", "4102444800")
		if resp, _ := get(t, u.Path+"?"+q.Encode(), nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("tampered expiry: %d", resp.StatusCode)
		}
		q = u.Query()
		q.Set("signature", "00"+q.Get("signature")[2:])
		if resp, _ := get(t, u.Path+"?"+q.Encode(), nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("tampered signature: %d", resp.StatusCode)
		}
		otherKey := calling.RecordingPathPrefix + calling.RecordingKey(f.env.OrgID, f.l2.ID)
		if resp, _ := get(t, otherKey+"?"+u.RawQuery, nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("another recording's path: %d", resp.StatusCode)
		}
	})
	t.Run("Traversal", func(t *testing.T) {
		for _, p := range []string{"%2e%2e/%2e%2e/jwt_secret", f.env.OrgID.String() + "/..%2f..%2fjwt_secret", "..%2F..%2Fapp.db"} {
			resp, body := get(t, calling.RecordingPathPrefix+p+"?"+u.RawQuery, nil)
			if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
				t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
			}
		}
		// A valid signature over a traversing path is still refused.
		signed := f.env.App.Resolver.Calling.RecordingURLs.Sign("../jwt_secret", time.Now().Add(time.Minute))
		if resp, _ := get(t, signed, nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("signed traversal: %d", resp.StatusCode)
		}
	})
	t.Run("NoRecording", func(t *testing.T) {
		res := admin.Do(http.MethodGet, "/api/call-logs/"+f.l2.ID.String()+"/recording", nil).ExpectError(t, http.StatusNotFound)
		if res.String("message") == "" {
			t.Fatalf("no message: %s", res.Raw)
		}
		f.agentB.Do(http.MethodGet, "/api/call-logs/"+f.l1.ID.String()+"/recording", nil).ExpectError(t, http.StatusNotFound)
		f.other.Do(http.MethodGet, "/api/call-logs/"+f.l1.ID.String()+"/recording", nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/call-logs/"+uuid.NewString()+"/recording", nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := f.agentA.GraphQL(`query($id: ID!) { callLogRecording(id: $id) { url duration } }`, map[string]any{"id": f.l1.ID})
		if res.Number("data.callLogRecording.duration") != 42 || res.String("data.callLogRecording.url") == "" {
			t.Fatalf("callLogRecording: %s", res.Raw)
		}
	})
}

func TestCallTransfers(t *testing.T) {
	f := newCallFixture(t)
	admin := f.env.Admin
	for name, tc := range map[string]struct {
		c     *apitest.Client
		query string
		want  []uuid.UUID
	}{
		"Admin":         {admin, "", []uuid.UUID{f.t5.ID, f.t3.ID, f.t2.ID, f.t1.ID, f.t4.ID}},
		"Manager":       {f.mgr, "", []uuid.UUID{f.t5.ID, f.t3.ID, f.t2.ID, f.t1.ID, f.t4.ID}},
		"AdminWaiting":  {admin, "status=waiting", []uuid.UUID{f.t5.ID, f.t3.ID, f.t2.ID}},
		"AgentA":        {f.agentA, "", []uuid.UUID{f.t5.ID, f.t2.ID, f.t1.ID}},
		"AgentAWaiting": {f.agentA, "status=waiting", []uuid.UUID{f.t5.ID, f.t2.ID}},
		"AgentB":        {f.agentB, "", []uuid.UUID{f.t5.ID, f.t4.ID}},
		"Paged":         {admin, "limit=2&page=2", []uuid.UUID{f.t2.ID, f.t1.ID}},
		"OtherOrg":      {f.other, "", nil},
	} {
		t.Run(name, func(t *testing.T) {
			res := tc.c.Do(http.MethodGet, "/api/call-transfers?"+tc.query, nil).ExpectStatus(t, http.StatusOK)
			expectIDs(t, res, "data.call_transfers", tc.want...)
			if len(tc.want) > 0 {
				expectKeys(t, res, "data.call_transfers.0", callTransferKeys...)
			}
		})
	}
	t.Run("Errors", func(t *testing.T) {
		admin.Do(http.MethodGet, "/api/call-transfers?status=ringing", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/call-transfers?page=x", nil).ExpectError(t, http.StatusBadRequest)
		admin.Do(http.MethodGet, "/api/call-transfers/"+uuid.NewString(), nil).ExpectError(t, http.StatusNotFound)
		admin.Do(http.MethodGet, "/api/call-transfers/x", nil).ExpectError(t, http.StatusBadRequest)
		f.agentA.Do(http.MethodGet, "/api/call-transfers/"+f.t3.ID.String(), nil).ExpectError(t, http.StatusNotFound)
		f.other.Do(http.MethodGet, "/api/call-transfers/"+f.t1.ID.String(), nil).ExpectError(t, http.StatusNotFound)
	})
	t.Run("Get", func(t *testing.T) {
		res := f.agentA.Do(http.MethodGet, "/api/call-transfers/"+f.t2.ID.String(), nil).ExpectStatus(t, http.StatusOK)
		expectKeys(t, res, "data", callTransferKeys...)
		if res.String("data.status") != "waiting" || res.String("data.call_log_id") != f.l3.ID.String() {
			t.Fatalf("transfer: %s", res.Raw)
		}
	})
	t.Run("GraphQL", func(t *testing.T) {
		res := f.agentB.GraphQL(`query { callTransfers(status: "waiting") { total callTransfers { id status } } }`, nil)
		if res.Number("data.callTransfers.total") != 1 || res.String("data.callTransfers.callTransfers.0.id") != f.t5.ID.String() {
			t.Fatalf("callTransfers: %s", res.Raw)
		}
		res = f.agentB.GraphQL(`query($id: ID!) { callTransfer(id: $id) { id } }`, map[string]any{"id": f.t1.ID})
		if res.GraphQLErrorCode() != "not_found" {
			t.Fatalf("another agent's transfer: %s", res.Raw)
		}
	})
}

func TestICEServers(t *testing.T) {
	t.Run("Default", func(t *testing.T) {
		env := apitest.New(t)
		res := env.Admin.Do(http.MethodGet, "/api/calls/ice-servers", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.ice_servers") != 1 || res.String("data.ice_servers.0.urls.0") != "stun:stun.l.google.com:19302" ||
			res.Get("data.ice_servers.0.username") != nil {
			t.Fatalf("default ICE servers: %s", res.Raw)
		}
		env.Anonymous().Do(http.MethodGet, "/api/calls/ice-servers", nil).ExpectError(t, http.StatusUnauthorized)
	})
	t.Run("TURNWithoutSecret", func(t *testing.T) {
		env := apitest.New(t, apitest.Setting{Name: "TURN_URLS", Value: "turn:turn.example.com:3478"})
		res := env.Admin.Do(http.MethodGet, "/api/calls/ice-servers", nil).ExpectStatus(t, http.StatusOK)
		if res.Len("data.ice_servers") != 2 || res.String("data.ice_servers.1.urls.0") != "turn:turn.example.com:3478" ||
			res.Get("data.ice_servers.1.username") != nil || res.Get("data.ice_servers.1.credential") != nil {
			t.Fatalf("TURN without secret: %s", res.Raw)
		}
	})
	t.Run("TURNWithSecret", func(t *testing.T) {
		env := apitest.New(t,
			apitest.Setting{Name: "STUN_URLS", Value: "stun:stun.example.com:3478"},
			apitest.Setting{Name: "TURN_URLS", Value: "turn:turn.example.com:3478?transport=udp,turns:turn.example.com:5349"},
			apitest.Setting{Name: "TURN_SECRET", Value: "turn-shared"},
			apitest.Setting{Name: "TURN_TTL", Value: "10m"})
		agent := env.NewUser(env.OrgID, access.RoleAgent)
		before := time.Now()
		res := agent.Do(http.MethodGet, "/api/calls/ice-servers", nil).ExpectStatus(t, http.StatusOK)
		user, cred := res.String("data.ice_servers.1.username"), res.String("data.ice_servers.1.credential")
		var expiry int64
		var who string
		if _, err := fmtSscanUser(user, &expiry, &who); err != nil || who != agent.UserID.String() {
			t.Fatalf("username %q: %v", user, err)
		}
		if d := time.Unix(expiry, 0).Sub(before); d < 10*time.Minute-2*time.Second || d > 10*time.Minute+2*time.Second {
			t.Fatalf("expiry %s from now", d)
		}
		if _, want := calling.TURNCredential("turn-shared", agent.UserID.String(), time.Unix(expiry, 0)); cred != want {
			t.Fatalf("credential %q, want %q", cred, want)
		}
		if res.Len("data.ice_servers.1.urls") != 2 || res.String("data.ice_servers.0.urls.0") != "stun:stun.example.com:3478" {
			t.Fatalf("servers: %s", res.Raw)
		}
		res = agent.GraphQL(`query { iceServers { urls username credential } }`, nil)
		if res.String("data.iceServers.1.username") == "" || res.String("data.iceServers.1.credential") == "" ||
			res.Get("data.iceServers.0.username") != nil || res.Get("data.iceServers.0.credential") != nil {
			t.Fatalf("iceServers: %s", res.Raw)
		}
	})
}

// fmtSscanUser splits a TURN username "<unix expiry>:<user id>".
func fmtSscanUser(s string, expiry *int64, who *string) (int, error) {
	exp, user, ok := strings.Cut(s, ":")
	if !ok {
		return 0, errors.New("no colon")
	}
	n, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return 0, err
	}
	*expiry, *who = n, user
	return 2, nil
}
