package access

import (
	"fmt"
	"sort"
)

// Permission marks of an operation besides "resource:action" keys.
const (
	// Public operations take no credentials. Each one is reviewed: login,
	// registration, token refresh, logout, SSO discovery, SSO init and
	// callback, the custom action redirect, signed call recording links
	// and the platform's webhook.
	Public = "public"
	// Authenticated operations need any valid principal and no permission.
	Authenticated = "authenticated"
)

// Transport restricts an operation to one transport, with the reason.
type Transport struct {
	// Name is "rest" or "graphql"; empty serves both.
	Name string
	// Why the other transport does not serve it.
	Why string
}

// Operation is what one operation of the API needs, whichever transport
// serves it.
type Operation struct {
	// Perm is a "resource:action" permission, Public or Authenticated.
	Perm string
	// NoTx marks a change that runs without the request transaction: it
	// calls the platform or a remote receiver (no transaction stays open
	// across a network call) or manages its own. Other changes run in one
	// transaction, reads in none.
	NoTx bool
	// Only restricts the operation to one transport.
	Only Transport
	// Rule is the membership rule the operation checks besides Perm (it
	// needs the database, so the operation applies it); nil: none.
	Rule *Rule
}

// Rule is a named membership rule: a condition on the viewer's seats in
// the organization (the teams it manages) that an operation requires
// besides its permission.
type Rule struct {
	// Name identifies the rule.
	Name string
	// Requires says what the rule asks of the viewer, in words.
	Requires string
}

// Requirement states everything the operation requires: its permission,
// and its membership rule when it has one (the OpenAPI document's
// x-permission).
func (o Operation) Requirement() string {
	if o.Rule == nil {
		return o.Perm
	}
	return o.Perm + ", and " + o.Rule.Requires
}

// Operations is the one permission table of the API: every REST route row
// and every GraphQL root field names its operation here (a GraphQL root
// field by its own name), and the GraphQL read guard finds here what
// reading each entity type ("Contact") and each guarded field
// ("Organization.timezone") needs. A test walks both transports against it.
var Operations = buildOperations()

// restOnly and graphqlOnly mark the transport an operation is limited to.
func restOnly(why string) Transport    { return Transport{Name: "rest", Why: why} }
func graphqlOnly(why string) Transport { return Transport{Name: "graphql", Why: why} }

var (
	sessionCookies = restOnly("it sets or clears the session cookies")
	multipart      = restOnly("a multipart file upload")
	platformHTTP   = restOnly("the platform calls it over plain HTTP")
	fileServing    = restOnly("it serves a file")
	realTimeGQL    = graphqlOnly("a GraphQL subscription; /ws carries the same events")
	entityRead     = graphqlOnly("an entity read, checked wherever GraphQL reaches the type (root field, node, edge)")
	fieldRead      = graphqlOnly("a field read, checked wherever GraphQL reaches the field")
)

func buildOperations() map[string]Operation {
	ops := map[string]Operation{}
	add := func(perm string, names ...string) {
		for _, n := range names {
			if _, dup := ops[n]; dup {
				panic("access: operation " + n + " listed twice")
			}
			ops[n] = Operation{Perm: perm}
		}
	}
	special := func(name string, op Operation) {
		if _, dup := ops[name]; dup {
			panic("access: operation " + name + " listed twice")
		}
		ops[name] = op
	}

	// Sessions and the signed-in person.
	for _, n := range []string{"register", "login", "refresh", "logout"} {
		special(n, Operation{Perm: Public, NoTx: true, Only: sessionCookies})
	}
	// Single sign-on (issue 13): the browser arrives without a session;
	// the state kept in Redis is the callback's anti-CSRF check.
	for _, n := range []string{"ssoInit", "ssoCallback"} {
		special(n, Operation{Perm: Public, NoTx: true, Only: sessionCookies})
	}
	special("ssoProviders", Operation{Perm: Public, Only: restOnly("the login page reads it before any session")})
	// Linking a provider to one's own account starts a browser redirect
	// flow bound to a state cookie; listing and removing links are the
	// person's own (issue 28).
	special("linkSSOIdentity", Operation{Perm: Authenticated, NoTx: true, Only: restOnly("it sets the browser's sign-in state cookie and sends the browser to the identity provider")})
	add(Authenticated, "mySSOIdentities", "unlinkSSOIdentity")
	for _, n := range []string{"openAPIDocument", "openAPIDocumentYAML"} {
		special(n, Operation{Perm: Public, Only: restOnly("the REST API's OpenAPI document")})
	}
	special("switchOrganization", Operation{Perm: Authenticated, NoTx: true, Only: sessionCookies})
	special("wsToken", Operation{Perm: Authenticated, Only: restOnly("a GraphQL WebSocket authenticates in its init message")})
	add(Authenticated, "viewer", "setAvailability", "changePassword", "myInvitations", "acceptInvitation",
		"declineInvitation", "currentOrganization", "updateMySettings")
	special("myOrganizations", Operation{Perm: Authenticated, Only: restOnly("GraphQL reads viewer.organizations")})
	for _, n := range []string{"node", "nodes"} {
		// The entity read guard checks what is found.
		special(n, Operation{Perm: Authenticated, Only: graphqlOnly("Relay's lookup of any entity by its id")})
	}
	// An organization's creator becomes its Admin; API keys cannot.
	add(Authenticated, "createOrganization")
	add("organizations:read", "organizations")

	// People, roles, teams. Beyond their permission, the people
	// operations apply the membership rules of membership.go: only an
	// Admin (IsAdmin) grants, takes away or removes an Admin seat
	// (IsAdminSeat), and never the last active one; only the person or a
	// super admin changes a person's identity (RequireIdentityOwner).
	add("users:read", "members", "users", "user")
	add("users:create", "addMember", "createUser")
	add("users:update", "updateMemberRole", "updateUser")
	add("users:delete", "removeMember", "deleteUser")
	add("roles:read", "roles", "role", "permissions")
	add("roles:create", "createRole")
	add("roles:update", "updateRole")
	add("roles:delete", "deleteRole")
	add("teams:read", "teams", "team", "teamMembers")
	add("teams:create", "createTeam")
	add("teams:delete", "deleteTeam")
	// An Admin (teams:update) or a manager of the team: the operations
	// apply ManagesTeam.
	for _, n := range []string{"updateTeam", "addTeamMember", "removeTeamMember"} {
		special(n, Operation{Perm: "teams:read", Rule: &ManagesTeam})
	}
	add("api_keys:read", "apiKeys", "apiKey")
	add("api_keys:create", "createAPIKey")
	add("api_keys:delete", "setAPIKeyActive", "deleteAPIKey")

	// Organization settings.
	add("settings:read", "orgSettings", "ssoConfigs")
	add("settings:update", "updateOrgSettings", "saveSSOConfig", "deleteSSOConfig")
	// Call audio (package calling/audio): hold music and ringback are
	// organization settings; IVR prompts belong to IVR flows, which the
	// chatbot's permissions govern. Uploads convert outside a transaction.
	special("uploadOrgAudio", Operation{Perm: "settings:update", NoTx: true, Only: multipart})
	special("uploadIVRAudio", Operation{Perm: "chatbot:update", NoTx: true, Only: multipart})
	special("ivrAudio", Operation{Perm: "chatbot:read", Only: fileServing})
	// Live calls (package calling): agents answer transfers in their
	// browsers, hold, resume, hang up and call contacts, as they send
	// messages. Every one runs on the node holding the call's media and
	// calls the platform, so none runs in the request transaction; the
	// manager also lets an agent act only on their own calls unless they
	// hold call_logs:read.
	for _, n := range []string{"initiateCallTransfer", "connectCallTransfer", "hangupCallTransfer",
		"holdCall", "resumeCall", "startOutgoingCall", "hangupOutgoingCall"} {
		special(n, Operation{Perm: "messages:create", NoTx: true})
	}
	// Call logs and transfers as they change (the reads' own visibility
	// rule applies to each item: an agent sees their own calls).
	special("callChanged", Operation{Perm: "messages:read", Only: realTimeGQL})
	special("callTransferChanged", Operation{Perm: "messages:read", Only: realTimeGQL})

	// Voice calling's data (package calling). IVR flows are configured
	// like the chatbot (chatbot:read to read, chatbot:update to change),
	// as their audio is. Call logs, their recordings and call transfers
	// are read by every member who reads messages (messages:read); the
	// operations then show a member without call_logs:read only the calls
	// they took (the spec's rule 3) and the transfers they took or may
	// answer (waiting, unassigned, for one of their teams or none); with
	// call_logs:read, everything. Asking a contact for call permission
	// sends a message (messages:create); reading its status is a
	// messages:read. The ICE servers are for any signed-in member. The
	// recording link is public: its HMAC signature and 15-minute expiry
	// are the capability (a media element's request carries no bearer
	// token).
	add("chatbot:read", "ivrFlows", "ivrFlow")
	add("chatbot:update", "createIVRFlow", "updateIVRFlow", "deleteIVRFlow")
	add("messages:read", "callLogs", "callLog", "callLogRecording", "callTransfers", "callTransfer", "callPermission")
	add("messages:create", "requestCallPermission")
	add(Authenticated, "iceServers")
	special("callRecordingFile", Operation{Perm: Public, Only: fileServing})

	// The inbox.
	add("contacts:read", "contacts", "contact", "contactSessionData")
	add("contacts:create", "createContact")
	add("contacts:update", "updateContact", "assignContact")
	add("contacts:delete", "deleteContact")
	// Searching message text shows what the history shows: the same
	// permission, so a member who may not read a conversation finds
	// nothing of it.
	add("messages:read", "messages", "markContactRead", "searchMessages")
	special("markMessageRead", Operation{Perm: "messages:read", Only: restOnly("the spec's placeholder; markContactRead is the operation")})
	special("media", Operation{Perm: "messages:read", Only: fileServing})
	add("messages:create", "sendMessage")
	special("sendTemplateMessage", Operation{Perm: "messages:create", NoTx: true})
	special("sendMediaMessage", Operation{Perm: "messages:create", NoTx: true, Only: multipart})
	// Contact tags and notes. Agents, who answer conversations, write
	// notes; changing someone else's note also needs contacts:update (the
	// operation checks it).
	add("contacts:read", "tags", "contactNotes")
	add("contacts:update", "createTag", "updateTag", "deleteTag")
	special("setContactTags", Operation{Perm: "contacts:update", Only: restOnly("GraphQL sets tags with updateContact")})
	add("messages:create", "createContactNote", "updateContactNote", "deleteContactNote")
	add("canned_responses:read", "cannedResponses", "cannedResponse", "useCannedResponse")
	add("canned_responses:create", "createCannedResponse")
	add("canned_responses:update", "updateCannedResponse")
	add("canned_responses:delete", "deleteCannedResponse")

	// Accounts (business phone numbers).
	add("accounts:read", "accounts", "account", "accountBusinessProfile")
	add("accounts:create", "createAccount")
	add("accounts:update", "updateAccount")
	add("accounts:delete", "deleteAccount")
	for _, n := range []string{"testAccount", "subscribeAccount", "updateAccountBusinessProfile"} {
		special(n, Operation{Perm: "accounts:update", NoTx: true})
	}
	special("uploadAccountProfilePhoto", Operation{Perm: "accounts:update", NoTx: true, Only: multipart})

	// Dashboard widgets: a member changes their own; sharing one with the
	// organization also needs settings:update (the operation checks it).
	add("analytics:read", "dashboardWidgets", "widgetDataSources", "dashboardData", "widgetData",
		"createDashboardWidget", "updateDashboardWidget", "deleteDashboardWidget", "saveDashboardLayout")
	special("dashboardWidget", Operation{Perm: "analytics:read", Only: restOnly("GraphQL lists them, and node(id:) reads one")})

	// Analytics (package analytics). Other agents' numbers also need
	// users:read (analytics.AgentsPermission; the operations check it);
	// the platform's analytics call the Graph API; the message and chatbot
	// analytics are the spec's 501 placeholders.
	add("analytics:read", "analyticsDashboard", "agentAnalytics", "agentAnalyticsDetail", "agentComparison",
		"providerAnalyticsAccounts")
	special("providerAnalytics", Operation{Perm: "analytics:read", NoTx: true})
	special("refreshProviderAnalytics", Operation{Perm: "analytics:read", NoTx: true})
	for _, n := range []string{"messageAnalytics", "chatbotAnalytics"} {
		special(n, Operation{Perm: "analytics:read", Only: restOnly("the spec's placeholder answering 501")})
	}

	// Campaigns (package campaigns). Starting, pausing, cancelling and
	// retrying are updates; the media upload calls the platform.
	add("campaigns:read", "campaigns", "campaign", "campaignRecipients")
	add("campaigns:create", "createCampaign")
	add("campaigns:update", "updateCampaign", "importCampaignRecipients", "deleteCampaignRecipient",
		"startCampaign", "pauseCampaign", "cancelCampaign", "retryFailedCampaign")
	add("campaigns:delete", "deleteCampaign")
	special("uploadCampaignMedia", Operation{Perm: "campaigns:update", NoTx: true, Only: multipart})
	special("campaignProgress", Operation{Perm: "campaigns:read", Only: realTimeGQL})
	// Chatbot configuration (package chatbot): settings, keyword rules, AI
	// contexts, flows, and the sessions' read side.
	add("chatbot:read", "chatbotSettings", "keywordRules", "aiContexts", "chatbotFlows", "chatbotSessions")
	for _, n := range []string{"chatbotFlow", "chatbotSession"} {
		special(n, Operation{Perm: "chatbot:read", Only: restOnly("GraphQL lists them, and node(id:) reads one")})
	}
	add("chatbot:update", "updateChatbotSettings", "createKeywordRule", "updateKeywordRule", "deleteKeywordRule",
		"createAIContext", "updateAIContext", "deleteAIContext", "createChatbotFlow", "updateChatbotFlow", "deleteChatbotFlow")
	// Chatbot transfers (package transfers). Agents list their queues
	// (chatbot:read) and create, pick, take and resume transfers
	// (messages:create, as they answer conversations); assigning to
	// someone else, taking one from someone else and seeing every
	// transfer also need the membership rule ManagesTransfers
	// (transferrule.go: transfers:manage; Admin and Manager hold it, Agent
	// does not), which the operations apply.
	add("chatbot:read", "chatbotTransfers")
	special("transferChanged", Operation{Perm: "chatbot:read", Only: realTimeGQL})
	add("messages:create", "createChatbotTransfer")
	for _, n := range []string{"pickChatbotTransfer", "assignChatbotTransfer", "resumeChatbotTransfer"} {
		special(n, Operation{Perm: "messages:create", Rule: &ManagesOthersTransfers})
	}

	// Outbound webhook subscriptions.
	add("webhooks:read", "webhookSubscriptions", "webhookSubscription", "webhookDeliveries")
	special("webhookEvents", Operation{Perm: "webhooks:read", Only: graphqlOnly("REST lists them with the subscriptions (available_events)")})
	add("webhooks:create", "createWebhookSubscription")
	add("webhooks:update", "updateWebhookSubscription", "replayWebhookDelivery")
	add("webhooks:delete", "deleteWebhookSubscription")
	special("testWebhookSubscription", Operation{Perm: "webhooks:update", NoTx: true})

	// Message templates. Changes that reach the platform (publish, sync,
	// the edit and delete of a submitted template, the header sample
	// upload) run without the request transaction.
	add("templates:read", "templates", "template")
	add("templates:create", "createTemplate")
	special("publishTemplate", Operation{Perm: "templates:create", NoTx: true})
	special("syncTemplates", Operation{Perm: "templates:create", NoTx: true})
	special("uploadTemplateMedia", Operation{Perm: "templates:create", NoTx: true, Only: multipart})
	special("updateTemplate", Operation{Perm: "templates:update", NoTx: true})
	special("deleteTemplate", Operation{Perm: "templates:delete", NoTx: true})
	special("templateStatusChanged", Operation{Perm: "templates:read", Only: realTimeGQL})
	// Custom actions (issue 13). Every member lists them (the inbox shows
	// them to Agents as buttons); executing one reads the contact and sends
	// its data to the action's target (contacts:read); defining them (URLs,
	// headers, code every member's browser receives) is organization
	// configuration (settings:update). The redirect is public: the token is
	// the capability (256 bits, 30 s, single use), and a bearer-token
	// client's new browser tab carries no credentials.
	add(Authenticated, "customActions", "customAction")
	add("settings:update", "createCustomAction", "updateCustomAction", "deleteCustomAction")
	special("executeCustomAction", Operation{Perm: "contacts:read", NoTx: true})
	special("customActionRedirect", Operation{Perm: Public, Only: restOnly("a browser follows it to the action's URL")})
	// Form flows (issue 13). Saving, publishing and deprecating reach the
	// platform (no request transaction); so does a sync.
	add("flows:read", "formFlows", "formFlow")
	add("flows:create", "createFormFlow", "duplicateFormFlow")
	add("flows:update", "updateFormFlow")
	add("flows:delete", "deleteFormFlow")
	for _, n := range []string{"saveFormFlowToProvider", "publishFormFlow", "deprecateFormFlow"} {
		special(n, Operation{Perm: "flows:update", NoTx: true})
	}
	special("syncFormFlows", Operation{Perm: "flows:create", NoTx: true})

	// Catalogs and products (package catalogs, issue 13). The spec's
	// catalogue has no catalogs resource: whoever reads messages reads
	// them (Agents send product messages), changing them is business
	// account configuration (accounts:update, which Admin and Manager
	// hold). Every change calls the platform, so none runs in the request
	// transaction; sending a product message is a message send.
	add("messages:read", "catalogs", "catalog", "catalogProducts", "product")
	for _, n := range []string{"createCatalog", "deleteCatalog", "syncCatalogs", "createProduct", "updateProduct", "deleteProduct"} {
		special(n, Operation{Perm: "accounts:update", NoTx: true})
	}
	add("messages:create", "sendProductMessage", "sendProductListMessage")

	// The platform's webhook: signed by the platform, not a user.
	special("verifyPlatformWebhook", Operation{Perm: Public, Only: platformHTTP})
	special("receivePlatformWebhook", Operation{Perm: Public, NoTx: true, Only: platformHTTP})

	// Real time.
	special("messageAdded", Operation{Perm: "messages:read", Only: realTimeGQL})
	special("messageStatusChanged", Operation{Perm: "messages:read", Only: realTimeGQL})
	special("contactChanged", Operation{Perm: "contacts:read", Only: realTimeGQL})

	for entity, perm := range entityReads {
		special(entity, Operation{Perm: perm, Only: entityRead})
	}
	for _, f := range []string{"maskPhoneNumbers", "timezone", "dateFormat", "callingEnabled", "maxCallDuration",
		"transferTimeoutSecs", "holdMusicFile", "ringbackFile", "allowOpenRegistration"} {
		// The settings an organization's members see through GET
		// /api/org/settings only.
		special("Organization."+f, Operation{Perm: "settings:read", Only: fieldRead})
	}
	return ops
}

// entityReads is the permission reading each entity type needs, wherever
// GraphQL reaches it: a root field, node(id:), or an edge of another
// entity (Contact.messages needs messages:read as GET
// /api/contacts/{id}/messages does). It follows the REST reads;
// Authenticated marks what any member sees (their organization,
// colleagues, role definitions). Every entity type has an entry (a test
// checks it), so a new type is not readable by accident.
var entityReads = map[string]string{
	"AIContext": "chatbot:read", "APIKey": "api_keys:read", "Account": "accounts:read",
	"AgentBreak": "users:read", "AgentTransfer": "contacts:read",
	"CallLog": "messages:read", "CallPermission": "messages:read", "CallTransfer": "messages:read",
	"Campaign": "campaigns:read", "CampaignRecipient": "campaigns:read",
	"CannedResponse": "canned_responses:read", "Catalog": "messages:read", "Product": "messages:read",
	"ChatbotFlow": "chatbot:read", "ChatbotSession": "chatbot:read", "ChatbotSettings": "chatbot:read",
	"KeywordRule": "chatbot:read", "CustomAction": Authenticated, "IVRFlow": "chatbot:read",
	"Contact": "contacts:read", "Message": "messages:read", "FormFlow": "flows:read",
	"Invitation": "users:read", "OrganizationMember": "users:read",
	"Organization": Authenticated, "User": Authenticated, "Role": Authenticated, "Permission": Authenticated,
	// A person's identity provider links: the data layer shows each
	// person only their own.
	"SSOIdentity": Authenticated,
	"SSOConfig":   "settings:read", "Team": "teams:read", "TeamMember": "teams:read",
	"Template": "templates:read", "Tag": "contacts:read", "ContactNote": "contacts:read",
	"DashboardWidget":     "analytics:read",
	"WebhookSubscription": "webhooks:read", "WebhookDelivery": "webhooks:read", "WebhookDeliveryAttempt": "webhooks:read",
}

// OperationOf returns the operation named name.
func OperationOf(name string) (Operation, bool) {
	op, ok := Operations[name]
	return op, ok
}

// MustOperation returns the operation named name and panics when there is
// none: a transport wiring an unknown operation is a programming error,
// caught at start.
func MustOperation(name string) Operation {
	op, ok := Operations[name]
	if !ok {
		panic(fmt.Sprintf("access: no operation %q in the permission table", name))
	}
	return op
}

// OperationNames returns the names of every operation, sorted.
func OperationNames() []string {
	names := make([]string, 0, len(Operations))
	for n := range Operations {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
