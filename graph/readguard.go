package graph

import (
	"context"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
)

// readPermissions is the permission that reading each entity type needs,
// wherever it is reached: a root field, node(id:), or an edge of another
// entity (Contact.messages needs messages:read as GET
// /api/contacts/{id}/messages does). It follows the REST route table's
// GET permissions; "authenticated" marks what any member sees (their
// organization, colleagues, role definitions). Every entity type has an
// entry (a test checks it), so a new type is not readable by accident.
var readPermissions = map[string]string{
	"AIContext": "chatbot:read", "APIKey": "api_keys:read", "Account": "accounts:read",
	"AgentBreak": "users:read", "AgentTransfer": "contacts:read",
	"CallLog": "messages:read", "CallPermission": "messages:read", "CallTransfer": "messages:read",
	"Campaign": "campaigns:read", "CampaignRecipient": "campaigns:read",
	"CannedResponse": "messages:read", "Catalog": "messages:read", "Product": "messages:read",
	"ChatbotFlow": "chatbot:read", "ChatbotSession": "chatbot:read", "ChatbotSettings": "chatbot:read",
	"KeywordRule": "chatbot:read", "CustomAction": "chatbot:read", "IVRFlow": "chatbot:read",
	"Contact": "contacts:read", "Message": "messages:read", "FormFlow": "flows:read",
	"Invitation": "users:read", "OrganizationMember": "users:read",
	"Organization": "authenticated", "User": "authenticated", "Role": "authenticated", "Permission": "authenticated",
	"SSOConfig": "settings:read", "Team": "teams:read", "TeamMember": "teams:read",
	"Template": "templates:read", "Tag": "contacts:read", "ContactNote": "contacts:read",
	"DashboardWidget":     "analytics:read",
	"WebhookSubscription": "webhooks:read", "WebhookDelivery": "webhooks:read", "WebhookDeliveryAttempt": "webhooks:read",
}

// ReadGuard is a field middleware: a field whose type is an entity (or a
// connection or edge of one) needs that entity's read permission, and so
// does an entity resolved through the Node interface.
func ReadGuard(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil {
		return next(ctx)
	}
	if err := requireRead(ctx, entityName(fc.Field.Definition.Type.Name())); err != nil {
		return nil, err
	}
	res, err := next(ctx)
	if err != nil || fc.Field.Definition.Type.Name() != "Node" {
		return res, err
	}
	nodes, _ := res.([]ent.Noder)
	if n, ok := res.(ent.Noder); ok {
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		if t := reflect.TypeOf(n); n != nil && t.Kind() == reflect.Pointer {
			if err := requireRead(ctx, t.Elem().Name()); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// entityName maps a GraphQL type name to its entity: FooConnection and
// FooEdge are Foo.
func entityName(typ string) string {
	if s, ok := strings.CutSuffix(typ, "Connection"); ok {
		return s
	}
	if s, ok := strings.CutSuffix(typ, "Edge"); ok {
		return s
	}
	return typ
}

func requireRead(ctx context.Context, entity string) error {
	perm, ok := readPermissions[entity]
	if !ok {
		return nil
	}
	v := viewer.FromContext(ctx)
	if v == nil {
		return apperr.New(apperr.Unauthenticated, "authentication required")
	}
	return access.Require(v, perm)
}

// ReadPermission returns the permission reading entity needs.
func ReadPermission(entity string) (string, bool) {
	p, ok := readPermissions[entity]
	return p, ok
}
