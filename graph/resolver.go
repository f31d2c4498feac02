// Package graph is the GraphQL transport: gqlgen's resolvers translate
// GraphQL types and call one operation of a domain package each. Resolver
// holds those packages' services, through which the REST layer reaches
// the same operations. No domain rule and no ent builder call lives here
// (TestNoEntBuildersInGraph).
package graph

import (
	"switchboard/access"
	"switchboard/accounts"
	"switchboard/analytics"
	"switchboard/apikeys"
	"switchboard/calling"
	"switchboard/campaigns"
	"switchboard/canned"
	"switchboard/catalogs"
	"switchboard/chatbot"
	"switchboard/contacts"
	"switchboard/customactions"
	"switchboard/ent"
	"switchboard/events"
	"switchboard/flows"
	"switchboard/messaging"
	"switchboard/notes"
	"switchboard/people"
	"switchboard/provider"
	"switchboard/roles"
	"switchboard/secrets"
	"switchboard/settings"
	"switchboard/tags"
	"switchboard/teams"
	"switchboard/templates"
	"switchboard/transfers"
	"switchboard/webhooks"
	"switchboard/widgets"
)

// Resolver is the root of the operations. It holds the dependencies the
// operations use.
type Resolver struct {
	Client *ent.Client
	// Secrets encrypts credentials at rest (SSO client secrets, account
	// tokens, webhook secrets).
	Secrets *secrets.Box
	// Provider calls the chat platform's Graph API for account checks,
	// webhook subscription and the business profile.
	Provider *provider.Client
	// Events records the operations' domain events and feeds GraphQL
	// subscriptions.
	Events *events.Bus
	// Messaging sends messages (the send operations delegate to it).
	Messaging *messaging.Service
	// Accounts holds the account operations (business phone numbers).
	Accounts *accounts.Service
	// Webhooks are the outbound webhook subscriptions and their
	// deliveries (events reach them through Events).
	Webhooks *webhooks.Subscriptions
	// Contacts are the organization's contacts.
	Contacts *contacts.Service
	// Tags is the organization's tag catalogue.
	Tags *tags.Service
	// Notes are the internal notes on contacts.
	Notes *notes.Service
	// Widgets are the analytics dashboard's widgets.
	Widgets *widgets.Service
	// Templates are the message templates and their platform lifecycle.
	Templates *templates.Service
	// Campaigns are the bulk campaigns and their sender.
	Campaigns *campaigns.Service
	// Chatbot is the chatbot's configuration.
	Chatbot *chatbot.Service
	// Calls runs live calls (answer, transfers, hold, outgoing).
	Calls *calling.Manager
	// CustomActions are the conversation's custom action buttons.
	CustomActions *customactions.Service
	// Transfers are the chatbot's hand-offs to human agents.
	Transfers *transfers.Service
	// Catalogs are the product catalogs, their products and product
	// messages.
	Catalogs *catalogs.Service
	// Flows are the platform's form flows.
	Flows *flows.Service
	// Analytics are the dashboard, agent and platform reports.
	Analytics *analytics.Service
	// Calling is voice calling's data: IVR flows, call logs and
	// transfers, ICE servers, call permissions and recordings.
	Calling *calling.Service
	// People are the organization's users, members and invitations, its
	// organizations, and the signed-in person's own account.
	People *people.Service
	// Roles are the organization's roles and the permission catalogue.
	Roles *roles.Service
	// Teams are the organization's teams and their members.
	Teams *teams.Service
	// APIKeys are the organization's API keys.
	APIKeys *apikeys.Service
	// Canned are the organization's canned responses.
	Canned *canned.Service
	// Settings are the organization's settings and SSO configurations.
	Settings *settings.Service
	// Revocations ends the open sockets whose access a change took away.
	Revocations *access.Revocations
}
