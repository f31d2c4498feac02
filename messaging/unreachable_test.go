package messaging_test

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/media"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/provider/providertest"
)

// closedAddress is a loopback address where nothing listens.
func closedAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// silentAddress is a loopback address that accepts connections and never
// answers.
func silentAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { conn.Close() })
		}
	}()
	return ln.Addr().String()
}

// networkDetail matches what a network error names: addresses, ports,
// the resolver, the failing system call, the certificate check.
var networkDetail = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|:\d+|\[|lookup [\w.-]+ on|no such host|dial|tcp|udp|\.invalid|x509|certificate|127\.|localhost|refused:`)

// expectUnreachable checks a failed send's error_message: the kind of
// failure only.
func expectUnreachable(t *testing.T, status, errorMessage, want string) {
	t.Helper()
	if status != string(message.StatusFailed) || errorMessage != want {
		t.Fatalf("status %s, error_message %q, want failed with %q", status, errorMessage, want)
	}
	if networkDetail.MatchString(errorMessage) {
		t.Fatalf("error_message %q shows network detail", errorMessage)
	}
}

// TestUnreachablePlatformIsNotDescribed: a send that cannot reach the
// platform (refused, unresolvable, silent, untrusted) fails with "the
// platform could not be reached" and the kind of failure; the addresses,
// ports and resolver in the network error go to the log only.
func TestUnreachablePlatformIsNotDescribed(t *testing.T) {
	refused := "http://" + closedAddress(t)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: refused})
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	box := env.App.Resolver.Secrets
	err := env.Client().Account.Create().SetName("Main").SetPhoneID(providertest.PhoneID).
		SetBusinessID(providertest.BusinessID).SetAccessTokenEncrypted(box.Seal([]byte(providertest.AccessToken))).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := env.Client().Contact.Create().SetPhoneNumber(contactPhone).SetLastInboundAt(time.Now()).SaveX(ctx)

	t.Run("SentThroughTheAPI", func(t *testing.T) {
		path := "/api/contacts/" + c.ID.String() + "/messages"
		res := env.Admin.Do(http.MethodPost, path, map[string]any{"type": "text", "chat_account": "Main", "content": map[string]any{"body": "hi"}}).
			ExpectStatus(t, http.StatusCreated)
		id := uuid.MustParse(res.String("data.id"))
		// The last attempt, as the queue's would be.
		if err := env.App.Messaging.Deliver(context.Background(), env.OrgID, id, true); err != nil {
			t.Fatal(err)
		}
		list := env.Admin.Do(http.MethodGet, path, nil).ExpectStatus(t, http.StatusOK)
		for i := range list.Len("data.messages") {
			m := "data.messages." + strconv.Itoa(i)
			if list.String(m+".id") == id.String() {
				expectUnreachable(t, list.String(m+".status"), list.String(m+".error_message"),
					"the platform could not be reached (connection refused)")
				return
			}
		}
		t.Fatalf("message %s not listed: %s", id, list.Raw)
	})

	tlsServer := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsServer.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	tlsServer.StartTLS()
	t.Cleanup(tlsServer.Close)
	for _, tc := range []struct{ name, base, want string }{
		{"ConnectionRefused", refused, "the platform could not be reached (connection refused)"},
		{"NameNotResolved", "http://graph.switchboard-test.invalid", "the platform could not be reached (DNS lookup failed)"},
		{"NoAnswer", "http://" + silentAddress(t), "the platform could not be reached (timeout)"},
		{"UntrustedCertificate", tlsServer.URL, "the platform could not be reached (TLS handshake failed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &messaging.Service{
				Client: env.Client(), Queue: env.App.Queue, Secrets: box, Events: env.App.Events,
				Provider: provider.New(provider.Options{BaseURL: tc.base, MaxRetries: -1, Timeout: 300 * time.Millisecond}),
				Media:    media.New(t.TempDir()), Log: slog.New(slog.DiscardHandler),
			}
			m := env.Client().Message.Create().SetContactID(c.ID).SetDirection(message.DirectionOutgoing).
				SetMessageType(messaging.TypeText).SetContent(map[string]any{"body": "hi"}).SetChatAccount("Main").SaveX(ctx)
			if err := svc.Deliver(context.Background(), env.OrgID, m.ID, false); err == nil {
				t.Fatal("an unreachable platform must be retried")
			}
			if err := svc.Deliver(context.Background(), env.OrgID, m.ID, true); err != nil {
				t.Fatal(err)
			}
			got, err := env.Client().Message.Get(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			expectUnreachable(t, string(got.Status), got.ErrorMessage, tc.want)
		})
	}
}
