package database_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/migrate"
	"switchboard/ent/privacy"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
	"switchboard/internal/testkit"
)

// tenantFixtures creates one row of every tenant-owned entity type in the
// organization of ctx and returns the ids by ent type name.
func tenantFixtures(t *testing.T, ctx context.Context, c *ent.Client) map[string]uuid.UUID {
	t.Helper()
	must := func(id uuid.UUID, err error) uuid.UUID {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ids := map[string]uuid.UUID{}
	save := func(name string) func(v any, err error) uuid.UUID {
		return func(v any, err error) uuid.UUID {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			id := reflect.ValueOf(v).Elem().FieldByName("ID").Interface().(uuid.UUID)
			ids[name] = id
			return id
		}
	}
	now := time.Now()
	u := must(idOf(c.User.Create().SetEmail(uuid.NewString() + "@example.com").Save(rule.Bypass(ctx, "fixture"))))
	roleID := save("Role")(c.Role.Create().SetName("Custom").Save(ctx))
	save("OrganizationMember")(c.OrganizationMember.Create().SetUserID(u).SetRoleID(roleID).Save(ctx))
	save("Invitation")(c.Invitation.Create().SetEmail("x@example.com").SetRoleID(roleID).SetExpiresAt(now.Add(time.Hour)).Save(ctx))
	teamID := save("Team")(c.Team.Create().SetName("T").Save(ctx))
	save("TeamMember")(c.TeamMember.Create().SetTeamID(teamID).SetUserID(u).Save(ctx))
	save("APIKey")(c.APIKey.Create().SetName("k").SetKeyPrefix("abcd1234").SetKeyHash([]byte(uuid.NewString())).SetUserID(u).Save(ctx))
	ssoID := save("SSOConfig")(c.SSOConfig.Create().SetProvider("google").SetClientID("id").Save(ctx))
	save("SSOIdentity")(c.SSOIdentity.Create().SetSSOConfigID(ssoID).SetUserID(u).SetProvider("google").
		SetIssuer("https://idp.example").SetSubject("s").Save(ctx))
	save("AgentBreak")(c.AgentBreak.Create().SetUserID(u).SetStartedAt(now).Save(ctx))
	save("Account")(c.Account.Create().SetName("acc").SetPhoneID("123").SetBusinessID("456").Save(ctx))
	contactID := save("Contact")(c.Contact.Create().SetPhoneNumber("15551234567").Save(ctx))
	save("Message")(c.Message.Create().SetContactID(contactID).SetDirection("incoming").SetMessageType("text").Save(ctx))
	tplID := save("Template")(c.Template.Create().SetChatAccount("acc").SetName("t").SetLanguage("en").SetCategory("UTILITY").Save(ctx))
	campID := save("Campaign")(c.Campaign.Create().SetName("c").SetChatAccount("acc").SetTemplateID(tplID).Save(ctx))
	save("CampaignRecipient")(c.CampaignRecipient.Create().SetCampaignID(campID).SetPhoneNumber("1555").Save(ctx))
	save("ChatbotSettings")(c.ChatbotSettings.Create().Save(ctx))
	save("KeywordRule")(c.KeywordRule.Create().SetName("k").SetMatchType("exact").Save(ctx))
	save("AIContext")(c.AIContext.Create().SetName("a").Save(ctx))
	save("ChatbotFlow")(c.ChatbotFlow.Create().SetName("f").Save(ctx))
	transferID := save("AgentTransfer")(c.AgentTransfer.Create().SetContactID(contactID).Save(ctx))
	save("TransferTimer")(c.TransferTimer.Create().SetTransferID(transferID).SetKind("sla_response").SetDueAt(now).Save(ctx))
	save("ChatbotSession")(c.ChatbotSession.Create().SetContactID(contactID).Save(ctx))
	save("FormFlow")(c.FormFlow.Create().SetChatAccount("acc").SetName("ff").Save(ctx))
	save("IVRFlow")(c.IVRFlow.Create().SetChatAccount("acc").SetName("ivr").Save(ctx))
	callID := save("CallLog")(c.CallLog.Create().SetChatCallID(uuid.NewString()).SetDirection("incoming").Save(ctx))
	save("CallTransfer")(c.CallTransfer.Create().SetCallLogID(callID).Save(ctx))
	save("CallPermission")(c.CallPermission.Create().SetContactID(contactID).SetChatAccount("acc").Save(ctx))
	save("CustomAction")(c.CustomAction.Create().SetName("ca").SetActionType("url").Save(ctx))
	catID := save("Catalog")(c.Catalog.Create().SetChatAccount("acc").SetName("cat").Save(ctx))
	save("Product")(c.Product.Create().SetCatalogID(catID).SetName("p").SetPrice(100).Save(ctx))
	save("CannedResponse")(c.CannedResponse.Create().SetName("cr").SetContent("hi").Save(ctx))
	save("Tag")(c.Tag.Create().SetName("vip").Save(ctx))
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	save("AnalyticsDay")(c.AnalyticsDay.Create().SetDay(day).Save(ctx))
	save("AnalyticsAgentDay")(c.AnalyticsAgentDay.Create().SetDay(day).SetAgentID(u).Save(ctx))
	save("DashboardWidget")(c.DashboardWidget.Create().SetName("w").SetOwnerID(u).Save(ctx))
	save("ContactNote")(c.ContactNote.Create().SetContactID(contactID).SetAuthorID(u).SetContent("note").Save(ctx))
	subID := save("WebhookSubscription")(c.WebhookSubscription.Create().SetName("w").SetURL("https://example.com").Save(ctx))
	delID := save("WebhookDelivery")(c.WebhookDelivery.Create().SetSubscriptionID(subID).SetEventID(uuid.New()).SetEvent("contact:created").SetPayload([]byte("{}")).Save(ctx))
	save("ParkedStatus")(c.ParkedStatus.Create().SetChatMessageID("wamid.x").SetStatus("sent").Save(ctx))
	save("WebhookDeliveryAttempt")(c.WebhookDeliveryAttempt.Create().SetDeliveryID(delID).SetAttempt(1).Save(ctx))
	return ids
}

func idOf(v *ent.User, err error) (uuid.UUID, error) {
	if err != nil {
		return uuid.Nil, err
	}
	return v.ID, nil
}

// entityClient returns the ent client of one entity type (c.Contact...).
func entityClient(c *ent.Client, name string) reflect.Value {
	return reflect.ValueOf(c).Elem().FieldByName(name)
}

func call(v reflect.Value, method string, args ...any) []reflect.Value {
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = reflect.ValueOf(a)
	}
	return v.MethodByName(method).Call(in)
}

func errOf(out []reflect.Value) error {
	e, _ := out[len(out)-1].Interface().(error)
	return e
}

// TestTenantIsolation creates one row of every tenant-owned type in org A
// and checks that org B can neither see, count, update nor delete it, that
// org A can, and that a missing viewer is denied.
func TestTenantIsolation(t *testing.T) {
	db := testkit.OpenDB(t)
	c := db.Client
	bg := context.Background()
	orgA, _ := testkit.NewOrg(t, c, "a")
	orgB, _ := testkit.NewOrg(t, c, "b")
	ctxA, ctxB := viewer.SystemContext(bg, orgA), viewer.SystemContext(bg, orgB)
	ids := tenantFixtures(t, ctxA, c)
	if want := tenantTables(); len(ids) != want {
		t.Fatalf("fixtures cover %d tenant-owned types, the schema has %d: add the new type to tenantFixtures", len(ids), want)
	}
	for name, id := range ids {
		t.Run(name, func(t *testing.T) {
			ec := entityClient(c, name)
			if n := call(call(ec, "Query")[0], "Count", ctxA)[0].Int(); n < 1 {
				t.Errorf("org A counts %d", n)
			}
			if err := errOf(call(ec, "Get", ctxA, id)); err != nil {
				t.Errorf("org A get: %v", err)
			}
			if n := call(call(ec, "Query")[0], "Count", ctxB)[0].Int(); n != 0 {
				t.Errorf("org B counts %d", n)
			}
			if err := errOf(call(ec, "Get", ctxB, id)); !ent.IsNotFound(err) {
				t.Errorf("org B get: %v, want not found", err)
			}
			if err := errOf(call(call(ec, "UpdateOneID", id)[0], "Exec", ctxB)); !ent.IsNotFound(err) {
				t.Errorf("org B update: %v, want not found", err)
			}
			if err := errOf(call(call(ec, "DeleteOneID", id)[0], "Exec", ctxB)); !ent.IsNotFound(err) {
				t.Errorf("org B delete: %v, want not found", err)
			}
			if err := errOf(call(ec, "Get", ctxA, id)); err != nil {
				t.Errorf("row gone after org B's attempts: %v", err)
			}
			_, err := call(call(ec, "Query")[0], "Count", bg)[0].Int(), errOf(call(call(ec, "Query")[0], "Count", bg))
			if !errors.Is(err, privacy.Deny) {
				t.Errorf("no viewer: %v, want privacy deny", err)
			}
		})
	}
}

func TestCreateInAnotherOrganizationDenied(t *testing.T) {
	db := testkit.OpenDB(t)
	c := db.Client
	bg := context.Background()
	orgA, _ := testkit.NewOrg(t, c, "a")
	orgB, _ := testkit.NewOrg(t, c, "b")
	_, err := c.Team.Create().SetName("x").SetOrganizationID(orgA).Save(viewer.SystemContext(bg, orgB))
	if !errors.Is(err, privacy.Deny) {
		t.Fatalf("create aimed at another org: %v, want deny", err)
	}
	team, err := c.Team.Create().SetName("x").Save(viewer.SystemContext(bg, orgB))
	if err != nil || team.OrganizationID != orgB {
		t.Fatalf("stamp: %v %v", team, err)
	}
	if _, err := c.Team.Create().SetName("y").Save(bg); err == nil {
		t.Fatal("create without viewer succeeded")
	}
}

// tenantTables counts the tables of tenant-owned entities: those with an
// organization_id, except those that carry one without being owned
// (refresh tokens belong to a user's session, inbound events may arrive
// before their organization is known, a business account hold says which
// organization a business account id belongs to, across all of them).
func tenantTables() int {
	n := 0
	for _, t := range migrate.Tables {
		if t.Name == "refresh_tokens" || t.Name == "inbound_events" || t.Name == "business_account_holds" {
			continue
		}
		for _, col := range t.Columns {
			if col.Name == "organization_id" {
				n++
				break
			}
		}
	}
	return n
}
