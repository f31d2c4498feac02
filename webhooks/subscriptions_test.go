package webhooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/internal/testkit"
	"switchboard/secrets"
	"switchboard/webhooks"
)

// subscriptionsEnv is a database with two organizations and the
// subscription operations without a dispatcher.
func subscriptionsEnv(t *testing.T) (s *webhooks.Subscriptions, mine, theirs context.Context) {
	t.Helper()
	db := testkit.OpenDB(t)
	box, err := secrets.NewBox("test key")
	if err != nil {
		t.Fatal(err)
	}
	_, mine = testkit.NewOrg(t, db.Client, "acme")
	_, theirs = testkit.NewOrg(t, db.Client, "other")
	return &webhooks.Subscriptions{Client: db.Client, Secrets: box}, mine, theirs
}

// TestSubscriptionRules: a subscription's name, URL (the SSRF policy),
// events and headers are checked; its secret is generated when not given,
// stored sealed and shown once.
func TestSubscriptionRules(t *testing.T) {
	s, mine, _ := subscriptionsEnv(t)
	event := webhooks.Events()[0].Value
	created, err := s.Create(mine, webhooks.CreateInput{Name: " CRM ", URL: " https://crm.example.com/hook ",
		Events: []string{event, " " + event}})
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != "CRM" || created.URL != "https://crm.example.com/hook" || len(created.Events) != 1 ||
		!created.IsActive || created.Secret == "" || !webhooks.HasSecret(created.WebhookSubscription) {
		t.Fatalf("created %+v", created)
	}
	if plain, err := s.Secrets.Open(created.SecretEncrypted); err != nil || string(plain) != created.Secret {
		t.Fatalf("sealed secret opens to %q, %v", plain, err)
	}
	valid := webhooks.CreateInput{Name: "n", URL: "https://crm.example.com/hook", Events: []string{event}}
	with := func(change func(*webhooks.CreateInput)) webhooks.CreateInput {
		in := valid
		change(&in)
		return in
	}
	for _, tc := range []struct {
		name, message string
		in            webhooks.CreateInput
	}{
		{"ErrNameRequired", "name is required", with(func(in *webhooks.CreateInput) { in.Name = " " })},
		{"ErrNameTooLong", "name must be at most 255 characters", with(func(in *webhooks.CreateInput) { in.Name = strings.Repeat("x", 256) })},
		{"ErrNameNUL", "name must not contain NUL characters", with(func(in *webhooks.CreateInput) { in.Name = "a\x00" })},
		{"ErrURLRequired", "url is required", with(func(in *webhooks.CreateInput) { in.URL = " " })},
		{"ErrURLPrivate", "url: ", with(func(in *webhooks.CreateInput) { in.URL = "http://127.0.0.1:8080/hook" })},
		{"ErrURLScheme", "url: ", with(func(in *webhooks.CreateInput) { in.URL = "ftp://crm.example.com" })},
		{"ErrNoEvents", "events must list at least one event", with(func(in *webhooks.CreateInput) { in.Events = nil })},
		{"ErrUnknownEvent", `events: unknown event "message:deleted"`, with(func(in *webhooks.CreateInput) { in.Events = []string{"message:deleted"} })},
		{"ErrSecretTooLong", "secret must be at most 256 characters", with(func(in *webhooks.CreateInput) { in.Secret = ptr(strings.Repeat("s", 257)) })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Create(mine, tc.in)
			testkit.ExpectError(t, err, apperr.Invalid, tc.message)
		})
	}
	t.Run("PrivateURLAllowedByDispatcher", func(t *testing.T) {
		d := webhooks.New(webhooks.Options{Client: s.Client, Secrets: s.Secrets, AllowPrivate: true})
		allowing := &webhooks.Subscriptions{Client: s.Client, Secrets: s.Secrets, Dispatcher: d}
		if _, err := allowing.Create(mine, with(func(in *webhooks.CreateInput) { in.URL = "http://127.0.0.1:8080/hook" })); err != nil {
			t.Fatal(err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestSubscriptionLifecycle: update keeps what is not given and clears
// the disabled reason on activation; tests and replays need a dispatcher;
// another organization's subscription is not found.
func TestSubscriptionLifecycle(t *testing.T) {
	s, mine, theirs := subscriptionsEnv(t)
	created, err := s.Create(mine, webhooks.CreateInput{Name: "CRM", URL: "https://crm.example.com/hook",
		Events: []string{webhooks.Events()[0].Value}, Secret: ptr(" given "), IsActive: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if created.Secret != "given" || created.IsActive {
		t.Fatalf("created %+v", created)
	}
	id := created.ID
	if err := s.Client.WebhookSubscription.UpdateOneID(id).SetDisabledReason("receiver answered 410").Exec(mine); err != nil {
		t.Fatal(err)
	}
	t.Run("ActivateClearsReason", func(t *testing.T) {
		w, err := s.Update(mine, id, webhooks.UpdateInput{IsActive: ptr(true), Secret: ptr("  ")})
		if err != nil || !w.IsActive || w.DisabledReason != "" || w.Name != "CRM" ||
			string(w.SecretEncrypted) != string(created.SecretEncrypted) {
			t.Fatalf("updated %+v, %v", w, err)
		}
	})
	for _, tc := range []struct {
		name string
		run  func() error
		want apperr.Code
	}{
		{"TestNeedsDispatcher", func() error { _, err := s.Test(mine, id); return err }, apperr.Unavailable},
		{"ReplayUnknownDelivery", func() error { _, err := s.ReplayDelivery(mine, id, uuid.New()); return err }, apperr.NotFound},
		{"CrossTenantGet", func() error { _, err := s.Get(theirs, id); return err }, apperr.NotFound},
		{"CrossTenantUpdate", func() error { _, err := s.Update(theirs, id, webhooks.UpdateInput{Name: ptr("x")}); return err }, apperr.NotFound},
		{"CrossTenantDeliveries", func() error { _, err := s.ListDeliveries(theirs, id, 0, 10); return err }, apperr.NotFound},
		{"CrossTenantDelete", func() error { return s.Delete(theirs, id) }, apperr.NotFound},
		{"ErrSearchNUL", func() error { _, err := s.List(mine, "\x00", 0, 10); return err }, apperr.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.ExpectError(t, tc.run(), tc.want, "")
		})
	}
	t.Run("ListAndDelete", func(t *testing.T) {
		pg, err := s.List(mine, "crm.example", 0, 10)
		if err != nil || pg.Total != 1 || pg.Webhooks[0].ID != id {
			t.Fatalf("list %+v, %v", pg, err)
		}
		if err := s.Delete(mine, id); err != nil {
			t.Fatal(err)
		}
		_, err = s.Get(mine, id)
		testkit.ExpectError(t, err, apperr.NotFound, "webhook not found")
	})
}
