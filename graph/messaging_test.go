package graph_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/template"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
	"switchboard/internal/testkit"
	"switchboard/provider/providertest"
)

// vars are the variables of a GraphQL operation.
type vars = map[string]any

// Credentials the fake Graph API accepts, and that no response may show.
const (
	testAccessToken = "EAAGtoken-for-graphql-tests-0001"
	testAppSecret   = "app-secret-for-graphql-tests"
)

// mustGraphQL runs an operation and fails on any GraphQL error.
func mustGraphQL(tb testing.TB, c *apitest.Client, query string, v vars) *apitest.Response {
	tb.Helper()
	res := c.GraphQL(query, v)
	if res.Status != http.StatusOK || res.Get("errors") != nil {
		tb.Fatalf("%s\n%d %s", query, res.Status, res.Raw)
	}
	return res
}

// expectCode fails unless the operation fails with extensions.code code.
func expectCode(tb testing.TB, res *apitest.Response, code string) {
	tb.Helper()
	if got := res.GraphQLErrorCode(); got != code {
		tb.Fatalf("error code %q, want %q: %s", got, code, res.Raw)
	}
	if res.Get("data") != nil {
		if d, ok := res.Get("data").(map[string]any); ok {
			for k, v := range d {
				if v != nil {
					tb.Fatalf("failed operation returned data.%s: %s", k, res.Raw)
				}
			}
		}
	}
}

// errorCase is an operation that must fail with a code.
type errorCase struct {
	name   string
	client *apitest.Client
	query  string
	vars   vars
	code   string
}

func runErrorCases(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectCode(t, tc.client.GraphQL(tc.query, tc.vars), tc.code)
		})
	}
}

// messagingEnv is an application against the fake Graph API with one
// account ("Main") created through GraphQL.
type messagingEnv struct {
	*apitest.Env
	fake      *providertest.Fake
	ctx       context.Context // the bootstrap organization's system viewer
	accountID string
}

const createAccountOp = `mutation($in: CreateAccountInput!) { createAccount(input: $in) {
	id name phoneID businessID appID webhookVerifyToken apiVersion isDefaultIncoming isDefaultOutgoing
	hasAccessToken hasAppSecret createdByID createdByName updatedByName } }`

// accountInput is a valid account for the fake's phone number; a phone
// number id belongs to one account, so each further one takes a new id.
func accountInput(name string, phoneID ...string) vars {
	phone := providertest.PhoneID
	if len(phoneID) > 0 {
		phone = phoneID[0]
	}
	return vars{
		"name": name, "phoneID": phone, "businessID": providertest.BusinessID,
		"appID": providertest.AppID, "accessToken": testAccessToken, "appSecret": testAppSecret,
	}
}

func newMessagingEnv(t *testing.T) *messagingEnv {
	t.Helper()
	fake := providertest.New(t)
	fake.SetAccessToken(testAccessToken)
	env := apitest.New(t, apitest.Setting{Name: "PROVIDER_BASE_URL", Value: fake.URL})
	res := mustGraphQL(t, env.Admin, createAccountOp, vars{"in": accountInput("Main")})
	return &messagingEnv{
		Env: env, fake: fake, ctx: viewer.SystemContext(context.Background(), env.OrgID),
		accountID: res.String("data.createAccount.id"),
	}
}

// newContact stores a contact; open says whether it wrote within the last
// 24 hours.
func (e *messagingEnv) newContact(t *testing.T, phone string, open bool) *ent.Contact {
	t.Helper()
	last := time.Now().Add(-time.Hour)
	if !open {
		last = time.Now().Add(-25 * time.Hour)
	}
	c, err := e.Client().Contact.Create().SetPhoneNumber(phone).SetLastInboundAt(last).Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sendsTo counts the messages the fake received for phone.
func (e *messagingEnv) sendsTo(t *testing.T, phone string) int {
	t.Helper()
	n := 0
	for _, r := range e.fake.Find(http.MethodPost, "/"+providertest.PhoneID+"/messages") {
		if body, _ := r.JSON(t).(map[string]any); body["to"] == phone {
			n++
		}
	}
	return n
}

// waitSent waits until the worker has sent the message.
func (e *messagingEnv) waitSent(t *testing.T, id string) {
	t.Helper()
	testkit.Eventually(t, "message "+id+" sent", func() bool {
		m, err := e.Client().Message.Get(e.ctx, uuid.MustParse(id))
		return err == nil && m.Status == message.StatusSent
	})
}

const contactFields = `id phoneNumber profileName tags metadata assignedUserID serviceWindowOpen`

func TestGraphQLContacts(t *testing.T) {
	env := apitest.New(t)
	admin, agent, other := env.Admin, env.NewUser(env.OrgID, access.RoleAgent), env.NewOrg("Other")
	create := `mutation($in: CreateContactInput!) { createContact(input: $in) { ` + contactFields + ` } }`
	createContact := func(c *apitest.Client, in vars) *apitest.Response {
		t.Helper()
		return mustGraphQL(t, c, create, vars{"in": in})
	}

	alice := createContact(admin, vars{"phoneNumber": "+1 555 010 0001", "profileName": "Alice",
		"tags": []string{"vip", "vip", " new "}, "metadata": vars{"plan": "gold", "seats": 3, "address": vars{"city": "Oslo"}}})
	if alice.String("data.createContact.phoneNumber") != "15550100001" || alice.Len("data.createContact.tags") != 2 ||
		alice.Number("data.createContact.metadata.seats") != 3 || alice.Get("data.createContact.serviceWindowOpen") != false {
		t.Fatalf("createContact: %s", alice.Raw)
	}
	aliceID := alice.String("data.createContact.id")
	bobID := createContact(admin, vars{"phoneNumber": "15550100002", "profileName": "Bob", "tags": []string{"support"}}).
		String("data.createContact.id")
	createContact(agent, vars{"phoneNumber": "15550100003", "profileName": "Carol"})
	// The same number is another organization's own contact.
	foreignID := createContact(other, vars{"phoneNumber": "15550100001", "profileName": "Theirs"}).String("data.createContact.id")

	t.Run("ConnectionSearchAndTags", func(t *testing.T) {
		list := `query($search: String, $tags: [String!]) { contacts(first: 10, search: $search, tags: $tags,
			orderBy: {field: PHONE_NUMBER, direction: ASC}) { totalCount edges { node { profileName } } } }`
		for _, tc := range []struct {
			name  string
			vars  vars
			total float64
			first string
		}{
			{"All", nil, 3, "Alice"},
			{"SearchName", vars{"search": "ALI"}, 1, "Alice"},
			{"SearchDigits", vars{"search": "010 0002"}, 1, "Bob"},
			{"AnyTag", vars{"tags": []string{"support", "vip"}}, 2, "Alice"},
			{"UnknownTag", vars{"tags": []string{"nope"}}, 0, ""},
			{"SearchAndTag", vars{"search": "bob", "tags": []string{"vip"}}, 0, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := mustGraphQL(t, agent, list, tc.vars)
				if r.Number("data.contacts.totalCount") != tc.total || r.String("data.contacts.edges.0.node.profileName") != tc.first {
					t.Fatalf("contacts: %s", r.Raw)
				}
			})
		}
		r := mustGraphQL(t, admin, `{ contacts(first: 1, where: {profileNameHasPrefix: "B"}) { totalCount pageInfo { hasNextPage } } }`, nil)
		if r.Number("data.contacts.totalCount") != 1 {
			t.Fatalf("where filter: %s", r.Raw)
		}
	})

	t.Run("GetAndUpdate", func(t *testing.T) {
		r := mustGraphQL(t, admin, `query($id: ID!) { contact(id: $id) { `+contactFields+` } }`, vars{"id": aliceID})
		if r.String("data.contact.profileName") != "Alice" {
			t.Fatalf("contact: %s", r.Raw)
		}
		update := `mutation($id: ID!, $in: UpdateContactInput!) { updateContact(id: $id, input: $in) { ` + contactFields + ` } }`
		r = mustGraphQL(t, admin, update, vars{"id": aliceID, "in": vars{"tags": []string{"gold"}, "assignedUserID": agent.UserID}})
		if r.String("data.updateContact.assignedUserID") != agent.UserID.String() || r.String("data.updateContact.tags.0") != "gold" ||
			r.String("data.updateContact.profileName") != "Alice" {
			t.Fatalf("updateContact: %s", r.Raw)
		}
		r = mustGraphQL(t, admin, update, vars{"id": aliceID, "in": vars{"clearAssignedAgent": true}})
		if r.Get("data.updateContact.assignedUserID") != nil {
			t.Fatalf("clearAssignedAgent: %s", r.Raw)
		}
		assign := `mutation($id: ID!, $user: ID) { assignContact(id: $id, userId: $user) { assignedUserID } }`
		r = mustGraphQL(t, admin, assign, vars{"id": aliceID, "user": admin.UserID})
		if r.String("data.assignContact.assignedUserID") != admin.UserID.String() {
			t.Fatalf("assignContact: %s", r.Raw)
		}
		if r = mustGraphQL(t, admin, assign, vars{"id": aliceID, "user": nil}); r.Get("data.assignContact.assignedUserID") != nil {
			t.Fatalf("unassign: %s", r.Raw)
		}
	})

	t.Run("SessionData", func(t *testing.T) {
		r := mustGraphQL(t, admin, `query($id: ID!) { contactSessionData(id: $id) {
			contact { id } session { id } flow { name } panel { sections { id label collapsible fields { key label order } } } } }`,
			vars{"id": aliceID})
		if r.String("data.contactSessionData.contact.id") != aliceID || r.Get("data.contactSessionData.session") != nil ||
			r.String("data.contactSessionData.panel.sections.0.id") != "general" ||
			r.String("data.contactSessionData.panel.sections.1.label") != "Address" {
			t.Fatalf("contactSessionData: %s", r.Raw)
		}
	})

	update := `mutation($id: ID!, $in: UpdateContactInput!) { updateContact(id: $id, input: $in) { id } }`
	byID := func(op string) string { return `mutation($id: ID!) { ` + op + `(id: $id) }` }
	runErrorCases(t, []errorCase{
		{"ErrPhoneInvalid", admin, create, vars{"in": vars{"phoneNumber": "12"}}, "invalid"},
		{"ErrPhoneDuplicate", admin, create, vars{"in": vars{"phoneNumber": "+1 (555) 010-0002"}}, "conflict"},
		{"ErrTagTooLong", admin, create, vars{"in": vars{"phoneNumber": "15550100009", "tags": []string{strings.Repeat("t", 65)}}}, "invalid"},
		{"ErrAssignAndClear", admin, update, vars{"id": aliceID, "in": vars{"assignedUserID": agent.UserID, "clearAssignedAgent": true}}, "invalid"},
		{"ErrAssigneeNotMember", admin, update, vars{"id": aliceID, "in": vars{"assignedUserID": uuid.New()}}, "invalid"},
		{"ErrSearchNUL", admin, `{ contacts(first: 1, search: "a\u0000") { totalCount } }`, nil, "invalid"},
		// Scalars that do not parse are invalid input, as REST's 400.
		{"ErrMalformedID", admin, `query($id: ID!) { contact(id: $id) { id } }`, vars{"id": "nope"}, "invalid"},
		{"ErrMetadataNotObject", admin, create, vars{"in": vars{"phoneNumber": "15550100009", "metadata": "x"}}, "invalid"},
		{"ErrMalformedCursor", admin, `{ contacts(first: 1, after: "zzz") { totalCount } }`, nil, "invalid"},
		{"AgentUpdateForbidden", agent, update, vars{"id": bobID, "in": vars{"profileName": "X"}}, "forbidden"},
		{"AgentDeleteForbidden", agent, byID("deleteContact"), vars{"id": bobID}, "forbidden"},
		{"CrossTenantGet", admin, `query($id: ID!) { contact(id: $id) { id } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantSessionData", admin, `query($id: ID!) { contactSessionData(id: $id) { contact { id } } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantUpdate", admin, update, vars{"id": foreignID, "in": vars{"profileName": "X"}}, "not_found"},
		{"CrossTenantAssign", admin, `mutation($id: ID!) { assignContact(id: $id, userId: null) { id } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantMarkRead", admin, byID("markContactRead"), vars{"id": foreignID}, "not_found"},
		{"CrossTenantDelete", admin, byID("deleteContact"), vars{"id": foreignID}, "not_found"},
	})

	t.Run("MarkReadAndDelete", func(t *testing.T) {
		if r := mustGraphQL(t, agent, byID("markContactRead"), vars{"id": bobID}); r.Get("data.markContactRead") != true {
			t.Fatalf("markContactRead: %s", r.Raw)
		}
		if r := mustGraphQL(t, admin, byID("deleteContact"), vars{"id": bobID}); r.Get("data.deleteContact") != true {
			t.Fatalf("deleteContact: %s", r.Raw)
		}
		expectCode(t, admin.GraphQL(`query($id: ID!) { contact(id: $id) { id } }`, vars{"id": bobID}), "not_found")
		// The other organization's contact with the same number is untouched.
		mustGraphQL(t, other, `query($id: ID!) { contact(id: $id) { id } }`, vars{"id": foreignID})
	})
}

func TestGraphQLMessages(t *testing.T) {
	e := newMessagingEnv(t)
	admin := e.Admin
	other := e.NewOrg("Other")
	foreignID := mustGraphQL(t, other, `mutation { createContact(input: {phoneNumber: "15550209999"}) { id } }`, nil).
		String("data.createContact.id")

	seeded := e.newContact(t, "15550200001", true)
	base := time.Now().Add(-time.Hour).UTC()
	for i := range 5 {
		err := e.Client().Message.Create().SetContactID(seeded.ID).SetDirection(message.DirectionIncoming).
			SetMessageType("text").SetContent(map[string]any{"body": fmt.Sprint(i)}).SetChatAccount("Main").
			SetChatMessageID(fmt.Sprintf("wamid.g%d", i)).SetCreatedAt(base.Add(time.Duration(i) * time.Minute)).Exec(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	page := `query($c: ID!, $before: ID, $limit: Int, $account: String) {
		messages(contactId: $c, beforeId: $before, limit: $limit, account: $account) {
			total hasMore messages { id contactID direction messageType content status } } }`

	t.Run("PagesBeforeID", func(t *testing.T) {
		first := mustGraphQL(t, admin, page, vars{"c": seeded.ID, "limit": 2})
		if first.Number("data.messages.total") != 5 || first.Len("data.messages.messages") != 2 ||
			first.String("data.messages.messages.0.content.body") != "3" || first.String("data.messages.messages.1.content.body") != "4" {
			t.Fatalf("newest page: %s", first.Raw)
		}
		next := mustGraphQL(t, admin, page, vars{"c": seeded.ID, "limit": 2, "before": first.String("data.messages.messages.0.id")})
		if next.Get("data.messages.hasMore") != true || next.String("data.messages.messages.0.content.body") != "1" {
			t.Fatalf("page before: %s", next.Raw)
		}
		last := mustGraphQL(t, admin, page, vars{"c": seeded.ID, "limit": 2, "before": next.String("data.messages.messages.0.id")})
		if last.Get("data.messages.hasMore") != false || last.Len("data.messages.messages") != 1 {
			t.Fatalf("oldest page: %s", last.Raw)
		}
		all := mustGraphQL(t, admin, page, vars{"c": seeded.ID, "limit": 1000})
		if all.Len("data.messages.messages") != 5 {
			t.Fatalf("default and capped limit: %s", all.Raw)
		}
		if none := mustGraphQL(t, admin, page, vars{"c": seeded.ID, "account": "Other"}); none.Number("data.messages.total") != 0 {
			t.Fatalf("account filter: %s", none.Raw)
		}
	})

	open := e.newContact(t, "15550200002", true)
	closed := e.newContact(t, "15550200003", false)
	send := `mutation($c: ID!, $in: SendMessageInput!) { sendMessage(contactId: $c, input: $in) {
		id status direction messageType content chatAccount interactiveData } }`

	t.Run("SendTextStoresPendingAndSendsOnce", func(t *testing.T) {
		r := mustGraphQL(t, admin, send, vars{"c": open.ID, "in": vars{"type": "text", "body": "  Hello there  "}})
		if r.String("data.sendMessage.status") != "pending" || r.String("data.sendMessage.content.body") != "Hello there" ||
			r.String("data.sendMessage.chatAccount") != "Main" || r.String("data.sendMessage.direction") != "outgoing" {
			t.Fatalf("sendMessage: %s", r.Raw)
		}
		e.waitSent(t, r.String("data.sendMessage.id"))
		if n := e.sendsTo(t, open.PhoneNumber); n != 1 {
			t.Fatalf("the platform got %d sends, want 1", n)
		}
	})
	t.Run("SendInteractive", func(t *testing.T) {
		r := mustGraphQL(t, admin, send, vars{"c": open.ID, "in": vars{"type": "interactive", "chatAccount": "Main",
			"interactive": vars{"type": "button", "body": "Pick one", "buttons": []vars{{"id": "a", "title": "A"}, {"id": "b", "title": "B"}}}}})
		if r.String("data.sendMessage.messageType") != "interactive" || r.String("data.sendMessage.interactiveData.buttons.1.id") != "b" {
			t.Fatalf("interactive: %s", r.Raw)
		}
		e.waitSent(t, r.String("data.sendMessage.id"))
	})
	t.Run("SendTemplateToNewNumber", func(t *testing.T) {
		_, err := e.Client().Template.Create().SetChatAccount("Main").SetName("order_shipped").SetLanguage("en_US").
			SetCategory(template.CategoryUTILITY).SetStatus("APPROVED").
			SetBodyContent("Hi {{1}}, your order {{2}} has shipped.").Save(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		r := mustGraphQL(t, admin, `mutation($in: SendTemplateMessageInput!) { sendTemplateMessage(input: $in) {
			id status messageType content contactID } }`, vars{"in": vars{
			"phoneNumber": "+1 555 020 0004", "templateName": "order_shipped", "templateParams": vars{"1": "Ann", "2": 42},
		}})
		if r.String("data.sendTemplateMessage.status") != "pending" || r.String("data.sendTemplateMessage.messageType") != "template" ||
			r.String("data.sendTemplateMessage.content.body") != "Hi Ann, your order 42 has shipped." {
			t.Fatalf("sendTemplateMessage: %s", r.Raw)
		}
		e.waitSent(t, r.String("data.sendTemplateMessage.id"))
		if n := e.sendsTo(t, "15550200004"); n != 1 {
			t.Fatalf("the platform got %d template sends, want 1", n)
		}
	})

	reader := newReader(t, e.Env, "contacts:read", "messages:read")
	sendTemplate := `mutation($in: SendTemplateMessageInput!) { sendTemplateMessage(input: $in) { id } }`
	runErrorCases(t, []errorCase{
		{"ErrLimitZero", admin, page, vars{"c": seeded.ID, "limit": 0}, "invalid"},
		{"ErrUnknownBeforeID", admin, page, vars{"c": seeded.ID, "before": uuid.New()}, "not_found"},
		{"ErrUnknownType", admin, send, vars{"c": open.ID, "in": vars{"type": "video"}}, "invalid"},
		{"ErrEmptyBody", admin, send, vars{"c": open.ID, "in": vars{"type": "text", "body": " "}}, "invalid"},
		{"ErrTooManyButtons", admin, send, vars{"c": open.ID, "in": vars{"type": "interactive", "interactive": vars{
			"type": "button", "body": "x", "buttons": []vars{{"id": "1", "title": "1"}, {"id": "2", "title": "2"}, {"id": "3", "title": "3"}, {"id": "4", "title": "4"}}}}}, "invalid"},
		{"ErrWindowClosed", admin, send, vars{"c": closed.ID, "in": vars{"type": "text", "body": "Hi"}}, "invalid"},
		{"ErrTemplateNoRecipient", admin, sendTemplate, vars{"in": vars{"templateName": "order_shipped"}}, "invalid"},
		{"ErrTemplateParamType", admin, sendTemplate, vars{"in": vars{"phoneNumber": "15550200005", "templateName": "order_shipped",
			"templateParams": vars{"1": true}}}, "invalid"},
		{"ErrTemplateUnknown", admin, sendTemplate, vars{"in": vars{"contactID": open.ID, "templateName": "missing"}}, "not_found"},
		{"ReaderSendForbidden", reader, send, vars{"c": open.ID, "in": vars{"type": "text", "body": "Hi"}}, "forbidden"},
		{"CrossTenantList", admin, page, vars{"c": foreignID}, "not_found"},
		{"CrossTenantSend", admin, send, vars{"c": foreignID, "in": vars{"type": "text", "body": "Hi"}}, "not_found"},
		{"CrossTenantTemplate", admin, sendTemplate, vars{"in": vars{"contactID": foreignID, "templateName": "order_shipped"}}, "not_found"},
	})
	if n := e.sendsTo(t, closed.PhoneNumber); n != 0 {
		t.Errorf("a refused send reached the platform %d times", n)
	}
}

// newReader creates a user whose role holds only perms and logs in.
func newReader(t *testing.T, env *apitest.Env, perms ...string) *apitest.Client {
	t.Helper()
	role := mustGraphQL(t, env.Admin, `mutation($in: CreateRoleInput!) { createRole(input: $in) { id } }`,
		vars{"in": vars{"name": "Reader " + uuid.NewString()[:8], "permissions": perms}})
	email := "reader-" + uuid.NewString()[:8] + "@example.com"
	mustGraphQL(t, env.Admin, `mutation($in: CreateUserInput!) { createUser(input: $in) { user { id } } }`,
		vars{"in": vars{"email": email, "fullName": "Reader", "password": apitest.UserPassword, "roleID": role.String("data.createRole.id")}})
	return env.Login(email, apitest.UserPassword)
}

// hookReceiver counts the webhook deliveries it receives and answers 200.
type hookReceiver struct {
	*httptest.Server
	got atomic.Int64
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h.got.Add(1)
	}))
	t.Cleanup(h.Close)
	return h
}

func TestGraphQLWebhookSubscriptions(t *testing.T) {
	env := apitest.New(t)
	admin, agent, other := env.Admin, env.NewUser(env.OrgID, access.RoleAgent), env.NewOrg("Other")
	rcv := newHookReceiver(t)
	create := `mutation($in: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $in) {
		secret webhookSubscription { id name url events headers isActive hasSecret } } }`
	r := mustGraphQL(t, admin, create, vars{"in": vars{"name": "CRM", "url": rcv.URL + "/crm",
		"events": []string{"contact:created"}, "headers": vars{"X-Team": "crm", "X-Shard": 7}}})
	secret, id := r.String("data.createWebhookSubscription.secret"), r.String("data.createWebhookSubscription.webhookSubscription.id")
	if !strings.HasPrefix(secret, "whsec_") || r.Get("data.createWebhookSubscription.webhookSubscription.hasSecret") != true ||
		r.String("data.createWebhookSubscription.webhookSubscription.headers.X-Shard") != "7" {
		t.Fatalf("createWebhookSubscription: %s", r.Raw)
	}
	foreignID := mustGraphQL(t, other, create, vars{"in": vars{"name": "Theirs", "url": rcv.URL + "/theirs", "events": []string{"contact:created"}}}).
		String("data.createWebhookSubscription.webhookSubscription.id")

	t.Run("SecretShownOnce", func(t *testing.T) {
		r := mustGraphQL(t, admin, `query($id: ID!) { webhookSubscription(id: $id) { hasSecret headers }
			webhookSubscriptions(first: 10, search: "crm") { totalCount edges { node { id hasSecret } } } }`, vars{"id": id})
		expectNoSecret(t, r, secret)
		if r.Get("data.webhookSubscription.hasSecret") != true || r.Number("data.webhookSubscriptions.totalCount") != 1 ||
			r.String("data.webhookSubscription.headers.X-Team") != "crm" {
			t.Fatalf("webhookSubscription: %s", r.Raw)
		}
		r = mustGraphQL(t, admin, `mutation($id: ID!) { updateWebhookSubscription(id: $id, input: {secret: " ", name: "CRM sync"}) { name hasSecret } }`,
			vars{"id": id})
		expectNoSecret(t, r, secret)
		if r.String("data.updateWebhookSubscription.name") != "CRM sync" || r.Get("data.updateWebhookSubscription.hasSecret") != true {
			t.Fatalf("updateWebhookSubscription: %s", r.Raw)
		}
	})
	t.Run("Events", func(t *testing.T) {
		r := mustGraphQL(t, admin, `{ webhookEvents { value label description } }`, nil)
		if r.String("data.webhookEvents.0.value") == "" || r.String("data.webhookEvents.0.label") == "" || r.Len("data.webhookEvents") < 5 {
			t.Fatalf("webhookEvents: %s", r.Raw)
		}
	})

	deliveries := `query($id: ID!) { webhookDeliveries(subscriptionId: $id, first: 10) { totalCount edges { node {
		id event status attempts payload subscription { id } deliveryAttempts { attempt statusCode } } } } }`
	t.Run("DeliveriesAndReplay", func(t *testing.T) {
		for _, phone := range []string{"15550400001", "15550400002"} {
			mustGraphQL(t, admin, `mutation($p: String!) { createContact(input: {phoneNumber: $p}) { id } }`, vars{"p": phone})
		}
		var r *apitest.Response
		testkit.Eventually(t, "two succeeded deliveries", func() bool {
			r = mustGraphQL(t, admin, deliveries, vars{"id": id})
			return r.Number("data.webhookDeliveries.totalCount") == 2 &&
				r.String("data.webhookDeliveries.edges.0.node.status") == "succeeded" &&
				r.String("data.webhookDeliveries.edges.1.node.status") == "succeeded"
		})
		newest := "data.webhookDeliveries.edges.0.node."
		if !strings.Contains(r.String(newest+"payload"), "15550400002") || r.String(newest+"event") != "contact:created" ||
			r.Number(newest+"deliveryAttempts.0.statusCode") != 200 || r.String(newest+"subscription.id") != id {
			t.Fatalf("deliveries are not newest first with their attempts: %s", r.Raw)
		}
		deliveryID := r.String(newest + "id")
		replay := mustGraphQL(t, admin, `mutation($id: ID!, $d: ID!) { replayWebhookDelivery(subscriptionId: $id, deliveryId: $d) { id status } }`,
			vars{"id": id, "d": deliveryID})
		if replay.String("data.replayWebhookDelivery.id") != deliveryID || replay.String("data.replayWebhookDelivery.status") != "pending" {
			t.Fatalf("replayWebhookDelivery: %s", replay.Raw)
		}
		testkit.Eventually(t, "the replayed delivery's second attempt", func() bool {
			r = mustGraphQL(t, admin, deliveries, vars{"id": id})
			return r.String(newest+"status") == "succeeded" && r.Len(newest+"deliveryAttempts") == 2
		})
		if r.Number(newest+"deliveryAttempts.0.attempt") != 1 || r.Number(newest+"deliveryAttempts.1.attempt") != 2 {
			t.Fatalf("attempts out of order: %s", r.Raw)
		}
		if got := rcv.got.Load(); got != 3 {
			t.Errorf("receiver got %d requests, want 3", got)
		}
	})
	t.Run("TestEvent", func(t *testing.T) {
		r := mustGraphQL(t, admin, `mutation($id: ID!) { testWebhookSubscription(id: $id) }`, vars{"id": id})
		if !strings.Contains(r.String("data.testWebhookSubscription"), "200") {
			t.Fatalf("testWebhookSubscription: %s", r.Raw)
		}
	})

	replay := `mutation($id: ID!, $d: ID!) { replayWebhookDelivery(subscriptionId: $id, deliveryId: $d) { id } }`
	runErrorCases(t, []errorCase{
		{"ErrUnknownEvent", admin, create, vars{"in": vars{"name": "X", "url": rcv.URL, "events": []string{"nope"}}}, "invalid"},
		{"ErrURL", admin, create, vars{"in": vars{"name": "X", "url": "ftp://example.com", "events": []string{"contact:created"}}}, "invalid"},
		{"ErrHeaderValue", admin, create, vars{"in": vars{"name": "X", "url": rcv.URL, "events": []string{"contact:created"}, "headers": vars{"X-A": true}}}, "invalid"},
		{"AgentCreateForbidden", agent, create, vars{"in": vars{"name": "X", "url": rcv.URL, "events": []string{"contact:created"}}}, "forbidden"},
		{"AgentListForbidden", agent, `{ webhookSubscriptions(first: 1) { totalCount } }`, nil, "forbidden"},
		{"CrossTenantGet", admin, `query($id: ID!) { webhookSubscription(id: $id) { id } }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantDeliveries", admin, deliveries, vars{"id": foreignID}, "not_found"},
		{"CrossTenantReplay", admin, replay, vars{"id": foreignID, "d": uuid.New()}, "not_found"},
		{"UnknownDelivery", admin, replay, vars{"id": id, "d": uuid.New()}, "not_found"},
		{"CrossTenantTest", admin, `mutation($id: ID!) { testWebhookSubscription(id: $id) }`, vars{"id": foreignID}, "not_found"},
		{"CrossTenantDelete", admin, `mutation($id: ID!) { deleteWebhookSubscription(id: $id) }`, vars{"id": foreignID}, "not_found"},
	})

	t.Run("Delete", func(t *testing.T) {
		if r := mustGraphQL(t, admin, `mutation($id: ID!) { deleteWebhookSubscription(id: $id) }`, vars{"id": id}); r.Get("data.deleteWebhookSubscription") != true {
			t.Fatalf("deleteWebhookSubscription: %s", r.Raw)
		}
		expectCode(t, admin.GraphQL(deliveries, vars{"id": id}), "not_found")
	})
}
