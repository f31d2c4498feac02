// Package rest serves the spec's /api paths. A handler decodes the request
// into an operation's input, calls the operation (graph.Resolver), and writes
// the spec's JSON. It holds no business rule of its own.
package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"switchboard/access"
)

// handlerFunc is an operation adapter: it returns the status and payload
// of a success, or an error.
type handlerFunc func(c *gin.Context) (int, any, error)

// Route is one row of the route table.
type Route struct {
	Method string
	Path   string
	// Op names the operation in access.Operations, the one permission
	// table of REST and GraphQL: it says what the route needs and whether
	// it runs in a transaction.
	Op     string
	Handle handlerFunc
	// Unlimited exempts a public route from the per-address rate limit
	// (the platform's webhook).
	Unlimited bool

	// What the OpenAPI document says of the route (openapi.go).
	Summary string
	// Query is a struct of the query parameters (query tags), or
	// paged(...) for a paginated list. run binds it before the handler
	// (bindQuery), which reads it with queryOf and pageOf.
	Query any
	// In is the JSON body's type (an exemplar), or a rawBody.
	In any
	// Out is the type of the success envelope's data: an exemplar,
	// list(...) for a paginated list, noData{} for null, or a rawBody
	// for an answer that is not the envelope.
	Out any
	// Status is the success status when it is not 200.
	Status int
	// Errors are the failure statuses the route answers besides those
	// every route of its kind answers (errorStatuses in openapi.go).
	Errors []int
}

// operation is the route's entry in the permission table.
func (r Route) operation() access.Operation { return access.MustOperation(r.Op) }

// inTx reports whether the route runs in the request transaction: a
// change, unless its operation manages its own.
func (r Route) inTx() bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead && !r.operation().NoTx
}

// Routes is the whole REST API with each route's permission: the one place
// a reader sees every endpoint and who may call it. Each group lives beside
// its handlers.
func (a *API) Routes() []Route {
	var all []Route
	for _, group := range [][]Route{
		a.authRoutes(), a.meRoutes(), a.userRoutes(), a.apiKeyRoutes(),
		a.organizationRoutes(), a.settingsRoutes(), a.audioRoutes(), a.roleRoutes(), a.teamRoutes(),
		a.webhookRoutes(), a.contactRoutes(), a.messageRoutes(), a.cannedResponseRoutes(), a.accountRoutes(),
		a.mediaRoutes(), a.webhookSubscriptionRoutes(), a.invitationRoutes(), a.tagRoutes(), a.noteRoutes(), a.widgetRoutes(),
		a.templateRoutes(), a.formFlowRoutes(), a.campaignRoutes(), a.chatbotRoutes(), a.transferRoutes(),
		a.customActionRoutes(), a.ssoRoutes(), a.analyticsRoutes(),
		a.catalogRoutes(), a.callingRoutes(), a.liveCallRoutes(), a.openAPIRoutes(),
	} {
		all = append(all, group...)
	}
	return all
}

// Method shorthands for the route tables.
const (
	get  = http.MethodGet
	post = http.MethodPost
	put  = http.MethodPut
	del  = http.MethodDelete
)
