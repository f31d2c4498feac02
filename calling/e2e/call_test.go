package e2e_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"switchboard/calling/media/mediatest"
	"switchboard/internal/apiclient"
	"switchboard/internal/calltest"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

const (
	adminEmail    = "admin@example.com"
	adminPassword = "e2e-admin-password"
	appSecret     = "e2e-app-secret"
)

// loopbackOnly peers reach the server at loopback addresses only, as in a
// network namespace whose one reachable address is 127.0.0.1.
var loopbackOnly = mediatest.Options{Reachable: func(ip net.IP) bool { return ip.IsLoopback() }}

// serverBinary is SWITCHBOARD_BIN when set (a build to test), else this
// tree built into the test's temporary directory.
func serverBinary(t *testing.T, ctx context.Context) string {
	t.Helper()
	if bin := os.Getenv("SWITCHBOARD_BIN"); bin != "" {
		return bin
	}
	bin, err := calltest.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// startServer runs the binary on its own data directory, a fresh
// PostgreSQL database and Redis database, with calling media on
// 127.0.0.1 only, against the platform fake.
func startServer(t *testing.T, ctx context.Context, plat *calltest.Platform) *calltest.Server {
	t.Helper()
	bin := serverBinary(t, ctx)
	addr, err := calltest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := map[string]string{
		"LISTEN_ADDR": addr, "PUBLIC_URL": "http://" + addr, "DATA_DIR": filepath.Join(dir, "data"),
		"DATABASE_URL": testenv.PostgresURL(t), "REDIS_URL": testenv.RedisDBURL(t),
		"PROVIDER_BASE_URL": plat.URL, "OUTBOUND_ALLOW_PRIVATE": "true",
		"RTC_LISTEN_ADDRS": "127.0.0.1", "STUN_URLS": "", // set empty: no STUN server on loopback
		"ADMIN_EMAIL": adminEmail, "ADMIN_PASSWORD": adminPassword,
		"JWT_SECRET": "e2e-jwt-secret", "ENCRYPTION_KEY": "e2e-encryption-key", "COOKIE_SECURE": "false",
		"LOG_FORMAT": "text",
	}
	srv, err := calltest.Start(ctx, bin, env, filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("server log (last lines):\n%s", srv.LogTail(60))
		}
	})
	plat.Webhook = srv.URL + "/api/webhook"
	return srv
}

// audible counts the packets that carry sound: more than the 3 bytes of
// an Opus silence frame.
func audible(packets []mediatest.Packet) int {
	n := 0
	for _, p := range packets {
		if len(p.Payload) > 3 {
			n++
		}
	}
	return n
}

// connectLimit bounds a peer's wait for ICE and DTLS, which take a few
// milliseconds on loopback: a peer that cannot reach the server fails
// the test in seconds rather than at its deadline.
const connectLimit = 20 * time.Second

// within is ctx ending after d at the latest.
func within(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	t.Cleanup(cancel)
	return ctx
}

// TestCallThroughTheServerProcess plays a whole call against the built
// server on loopback: the platform's signed connect webhook with the
// caller's offer, the answer (announcing 127.0.0.1 only) in pre_accept
// and accept, the IVR greeting and menu heard, the caller's RFC 4733 key
// choosing the transfer branch, the agent's browser taking the transfer,
// audio both ways across the bridge, hold music to the caller while the
// agent hears nothing, resume, the agent's hangup, exactly one terminate
// at the platform, and the recording downloaded.
func TestCallThroughTheServerProcess(t *testing.T) {
	testenv.RequireTool(t, "ffmpeg") // the IVR's prompts are converted, the recording mixed
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	plat, err := calltest.StartPlatform(appSecret)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(plat.Close)
	srv := startServer(t, ctx, plat)
	cc, err := calltest.SetUp(ctx, srv.URL, adminEmail, adminPassword, appSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := cc.AddIVR(ctx); err != nil {
		t.Fatal(err)
	}

	const callID, from = "wacid.e2e-loopback", "15550000001"
	caller := mediatest.NewPeer(t, loopbackOnly)
	answerCall(t, ctx, plat, caller, callID, from)
	// The greeting (51 packets of 20 ms) then the menu's prompt.
	if err := caller.WaitReceived(ctx, 51+20); err != nil {
		t.Fatalf("greeting and menu not heard: %v", err)
	}
	if n := audible(caller.Received()); n < 51+20 {
		t.Fatalf("%d audible packets of the greeting and menu, want at least 71", n)
	}
	if err := caller.SendDTMF(ctx, '1'); err != nil {
		t.Fatal(err)
	}
	var transferID string
	testkit.Eventually(t, "the transfer waits", func() bool {
		waiting, err := cc.WaitingTransfers(ctx)
		if err != nil {
			t.Logf("waiting transfers: %v", err)
		}
		transferID = waiting[callID]
		return transferID != ""
	})

	agent := mediatest.NewPeer(t, loopbackOnly)
	if err := cc.Take(ctx, transferID, agent); err != nil {
		t.Fatal(err)
	}
	if err := agent.WaitConnected(within(t, ctx, connectLimit)); err != nil {
		t.Fatal(err)
	}
	bridged(t, ctx, caller, agent)
	logID := held(t, ctx, cc, callID, caller, agent)

	var hangup struct{ Status string }
	if err := cc.Agent.Call(ctx, http.MethodPost, "/api/call-transfers/"+transferID+"/hangup", nil, http.StatusOK, &hangup); err != nil {
		t.Fatal(err)
	}
	if hangup.Status != "completed" {
		t.Fatalf("hangup status = %q, want completed", hangup.Status)
	}
	if _, err := plat.WaitAction(ctx, callID, "terminate"); err != nil {
		t.Fatal(err)
	}
	// The platform confirms the end with its own terminate webhook.
	if err := plat.Terminate(ctx, callID, from, 5); err != nil {
		t.Fatal(err)
	}
	recording(t, ctx, cc, callID, logID)
	if n := plat.Count(callID, "terminate"); n != 1 {
		var names []string
		for _, a := range plat.Actions(callID) {
			names = append(names, a.Action)
		}
		t.Fatalf("the platform got %d terminate requests for the call, want exactly 1 (actions: %s)", n, strings.Join(names, ", "))
	}
}

// answerCall rings the call and plays the platform's side of the answer:
// the SDP answer arrives with pre_accept, the caller's peer connects to
// it, and accept follows with the same answer.
func answerCall(t *testing.T, ctx context.Context, plat *calltest.Platform, caller *mediatest.Peer, callID, from string) {
	t.Helper()
	if err := plat.Ring(ctx, callID, from, caller.Offer()); err != nil {
		t.Fatal(err)
	}
	pre, err := plat.WaitAction(ctx, callID, "pre_accept")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(pre.SDP, "\r\n") {
		if f := strings.Fields(line); strings.HasPrefix(line, "a=candidate:") && (len(f) < 5 || f[4] != "127.0.0.1") {
			t.Errorf("the answer announces %q; RTC_LISTEN_ADDRS=127.0.0.1 allows 127.0.0.1 only", line)
		}
	}
	if err := caller.ApplyAnswer(pre.SDP); err != nil {
		t.Fatal(err)
	}
	if err := caller.WaitConnected(within(t, ctx, connectLimit)); err != nil {
		t.Fatal(err)
	}
	acc, err := plat.WaitAction(ctx, callID, "accept")
	if err != nil {
		t.Fatal(err)
	}
	if acc.SDP != pre.SDP {
		t.Fatal("accept carries another SDP answer than pre_accept")
	}
}

// bridged checks that audio crosses the bridge both ways unchanged (Opus
// is forwarded, not transcoded).
func bridged(t *testing.T, ctx context.Context, caller, agent *mediatest.Peer) {
	t.Helper()
	tone := mediatest.TonePackets()
	for _, dir := range []struct {
		name     string
		from, to *mediatest.Peer
	}{{"caller to agent", caller, agent}, {"agent to caller", agent, caller}} {
		dir.to.Reset()
		go func() { _ = dir.from.SendAudio(ctx, 50) }()
		if err := dir.to.WaitReceived(ctx, 30); err != nil {
			t.Fatalf("%s: %v", dir.name, err)
		}
		got := dir.to.Received()
		if !containsPayload(tone, got[len(got)-1].Payload) {
			t.Fatalf("%s: a packet that is not one of the tone's arrived", dir.name)
		}
	}
}

func containsPayload(packets [][]byte, p []byte) bool {
	for _, q := range packets {
		if bytes.Equal(q, p) {
			return true
		}
	}
	return false
}

// held puts the call on hold: the caller hears the hold music while the
// agent hears nothing of the caller; resume restores the bridge. It
// returns the call log's id.
func held(t *testing.T, ctx context.Context, cc *calltest.CallCenter, callID string, caller, agent *mediatest.Peer) string {
	t.Helper()
	l, err := cc.CallLog(ctx, callID)
	if err != nil {
		t.Fatal(err)
	}
	control := func(op, want string) {
		t.Helper()
		var out struct{ Status string }
		if err := cc.Agent.Call(ctx, http.MethodPost, "/api/call-logs/"+l.ID+"/"+op, nil, http.StatusOK, &out); err != nil {
			t.Fatal(err)
		}
		if out.Status != want {
			t.Fatalf("%s: status %q, want %q", op, out.Status, want)
		}
	}
	control("hold", "on_hold")
	caller.Reset()
	agent.Reset()
	if err := caller.SendAudio(ctx, 25); err != nil {
		t.Fatal(err)
	}
	if err := caller.WaitReceived(ctx, 25); err != nil {
		t.Fatalf("hold music not heard: %v", err)
	}
	if n := audible(caller.Received()); n < 25 {
		t.Fatalf("%d audible packets of hold music, want at least 25", n)
	}
	if n := len(agent.Received()); n != 0 {
		t.Fatalf("the agent heard %d packets of the caller while on hold", n)
	}
	control("resume", "connected")
	go func() { _ = caller.SendAudio(ctx, 25) }()
	if err := agent.WaitReceived(ctx, 10); err != nil {
		t.Fatalf("after resume: %v", err)
	}
	return l.ID
}

// recording waits until the call has ended and its recording is stored,
// then downloads it through the signed link.
func recording(t *testing.T, ctx context.Context, cc *calltest.CallCenter, callID, logID string) {
	t.Helper()
	// The recording is mixed (ffmpeg) after the hangup: a minute on a
	// loaded machine.
	testkit.EventuallyWithin(t, time.Minute, "call completed by the agent with its recording", func() bool {
		l, err := cc.CallLog(ctx, callID)
		if err != nil {
			t.Logf("call log: %v", err)
		}
		return err == nil && l.Status == "completed" && l.DisconnectedBy == "agent" && l.RecordingDuration > 0
	})
	var link struct {
		URL string `json:"url"`
	}
	if err := cc.Admin.Call(ctx, http.MethodGet, "/api/call-logs/"+logID+"/recording", nil, http.StatusOK, &link); err != nil {
		t.Fatal(err)
	}
	anonymous := &apiclient.Client{Base: cc.Admin.Base, HTTP: cc.Admin.HTTP}
	rec, err := anonymous.Get(ctx, link.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(rec, []byte("OggS")) || len(rec) < 1000 {
		t.Fatalf("recording: %d bytes, want an Ogg file", len(rec))
	}
}
