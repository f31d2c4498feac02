// Package graph holds the operations of the API as methods on Resolver,
// served over GraphQL by gqlgen and called by the REST layer.
package graph

import (
	"context"

	"switchboard/ent"
	"switchboard/events"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/secrets"
	"switchboard/webhooks"
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
	// Webhooks manages outbound webhook subscriptions and their
	// deliveries (events reach them through Events).
	Webhooks *webhooks.Dispatcher
}

// NoTxMutations are the mutations that call the platform, a webhook
// receiver or download a file. Like their REST routes they run without the
// request transaction, so that none stays open across a network call; each
// writes at most one row or opens its own transaction. An operation that
// selects one of them runs wholly without the request transaction.
var NoTxMutations = []string{
	"testAccount", "subscribeAccount", "updateAccountBusinessProfile",
	"testWebhookSubscription", "sendTemplateMessage",
}

// db returns the transaction's client when ctx carries one, the root
// client otherwise.
func (r *Resolver) db(ctx context.Context) *ent.Client {
	if tx := ent.TxFromContext(ctx); tx != nil {
		return tx.Client()
	}
	return r.Client
}
