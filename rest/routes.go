// Package rest serves the spec's /api paths. A handler decodes the request
// into an operation's input, calls the operation (graph.Resolver), and writes
// the spec's JSON. It holds no business rule of its own.
package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Permission marks of the route table besides "resource:action" keys.
const (
	// Public routes take no credentials. Each one is reviewed: login,
	// registration, token refresh, SSO discovery and the platform webhook.
	Public = "public"
	// Authenticated routes need any valid principal and no permission.
	Authenticated = "authenticated"
)

// handlerFunc is an operation adapter: it returns the status and payload
// of a success, or an error.
type handlerFunc func(c *gin.Context) (int, any, error)

// Route is one row of the route table.
type Route struct {
	Method string
	Path   string
	// Perm is a "resource:action" permission, Public or Authenticated.
	Perm   string
	Handle handlerFunc
	// NoTx skips the request transaction of a mutating route (the
	// operation manages its own, as the auth routes do).
	NoTx bool
	// Unlimited exempts a public route from the per-address rate limit
	// (the platform's webhook).
	Unlimited bool
}

func (r Route) mutating() bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead && !r.NoTx
}

// Routes is the whole REST API with each route's permission: the one place
// a reader sees every endpoint and who may call it. Each group lives beside
// its handlers.
func (a *API) Routes() []Route {
	var all []Route
	for _, group := range [][]Route{
		a.authRoutes(), a.meRoutes(), a.userRoutes(), a.apiKeyRoutes(),
		a.organizationRoutes(), a.settingsRoutes(), a.roleRoutes(), a.teamRoutes(),
		a.webhookRoutes(), a.contactRoutes(), a.messageRoutes(), a.cannedResponseRoutes(), a.accountRoutes(),
		a.mediaRoutes(), a.webhookSubscriptionRoutes(), a.tagRoutes(), a.noteRoutes(), a.widgetRoutes(),
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
