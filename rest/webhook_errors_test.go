package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// TestWebhookTestErrorRevealsNothing points a subscription at a host name
// that resolves to a loopback address (as a DNS change after saving it
// would): the test answers that the destination is not allowed, and does
// not say what the name resolved to.
func TestWebhookTestErrorRevealsNothing(t *testing.T) {
	env := apitest.New(t, apitest.Setting{Name: "OUTBOUND_ALLOW_PRIVATE", Value: "false"})
	id, _ := mustCreateWebhook(t, env.Admin, webhookBody("Internal", "https://hooks.example.com/x", nil))
	for _, tc := range []struct{ name, url string }{
		{"LoopbackName", "http://localhost:9/hook"},
		{"LoopbackNameWithPort", "http://localhost:5432/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := viewer.SystemContext(context.Background(), env.OrgID)
			if err := env.Client().WebhookSubscription.UpdateOneID(uuid.MustParse(id)).SetURL(tc.url).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			res := env.Admin.Do(http.MethodPost, "/api/webhooks/"+id+"/test", nil).ExpectError(t, http.StatusBadRequest)
			msg := res.String("message")
			if !strings.Contains(msg, "destination not allowed") {
				t.Errorf("message %q does not say the destination is not allowed", msg)
			}
			for _, leak := range []string{"127.0.0.1", "::1", "resolves", "loopback", "dial", "lookup"} {
				if strings.Contains(msg, leak) {
					t.Errorf("message %q reveals %q", msg, leak)
				}
			}
			gql := env.Admin.GraphQL(`mutation($id: ID!) { testWebhookSubscription(id: $id) }`, map[string]any{"id": id})
			if m := gql.String("errors.0.message"); !strings.Contains(m, "destination not allowed") || strings.Contains(m, "127.0.0.1") {
				t.Errorf("GraphQL message %q", m)
			}
		})
	}
}
