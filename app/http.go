package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"
	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/graph"
	"switchboard/graphiql"
	"switchboard/rest"
)

func init() { gin.SetMode(gin.ReleaseMode) }

// routes builds the HTTP handler: operational endpoints, GraphQL and the
// REST route table.
func (a *App) routes(api *rest.API) (http.Handler, error) {
	e := gin.New()
	e.ContextWithFallback = true
	// The client address is the TCP peer unless the peer is a trusted
	// proxy; then it is what that proxy forwards.
	e.ForwardedByClientIP = true
	e.RemoteIPHeaders = []string{"X-Forwarded-For", "X-Real-IP"}
	if err := e.SetTrustedProxies(a.Cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("TRUSTED_PROXIES: %w", err)
	}
	e.Use(requestID(), securityHeaders(), a.Metrics.middleware(), rest.Recovery(a.Log), a.connectionDeadlines(api), accessLog(a.Log))
	e.GET("/healthz", a.healthz)
	if a.Cfg.MetricsAddr == "" {
		e.GET("/metrics", gin.WrapH(a.metricsEndpoint()))
	}
	e.Any("/graphql", graphqlEndpoint(api, a.graphqlHandler(api)))
	e.GET(graphiql.AssetsPath+"*file", gin.WrapH(graphiql.Assets))
	e.GET("/ws", api.WebSocket)
	api.Mount(e)
	e.NoRoute(api.NotFound)
	e.NoMethod(api.NotFound)
	return e, nil
}

// graphqlEndpoint answers a browser opening /graphql with GraphiQL (or
// its sign-in page without a session) and everything else with GraphQL.
func graphqlEndpoint(api *rest.API, gql http.Handler) gin.HandlerFunc {
	page := api.PageGuard(graphiql.Page, graphiql.Login)
	operations := api.GraphQLGuard(graphqlRequests(gql))
	return func(c *gin.Context) {
		if graphiql.WantsPage(c.Request) {
			page(c)
			return
		}
		operations(c)
	}
}

// graphqlWSReadLimit bounds a frame a GraphQL WebSocket client sends.
var graphqlWSReadLimit int64 = 64 << 10

func (a *App) graphqlHandler(api *rest.API) http.Handler {
	srv := handler.New(graph.CostedSchema(graph.NewExecutableSchema(graph.Config{
		Resolvers: a.Resolver,
	})))
	// The WebSocket transport comes before GET, or GET swallows the upgrade.
	srv.AddTransport(transport.Websocket{
		// Browsers send their page's origin; the single-use token in the
		// init message is what authenticates, as on /ws.
		Implementation: revocableWebsocket{transport.CoderWebsocketImplementation{
			AcceptOptions: websocket.AcceptOptions{OriginPatterns: []string{"*"}},
		}},
		KeepAlivePingInterval: 15 * time.Second,
		// A subscribe message holds one operation (graph.MaxTokens);
		// a larger frame closes the socket.
		PayloadReadLimit: &graphqlWSReadLimit,
		InitTimeout:      5 * time.Second,
		InitFunc:         a.graphqlInit(api),
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	// The bounds of an operation (graph/limits.go): tokens while parsing,
	// then fields, depth and NUL characters, then complexity.
	srv.SetParserTokenLimit(graph.MaxTokens)
	// First: a WebSocket's operations are rate limited before they are
	// parsed, and run as the viewer their credential gives now.
	srv.Use(socketOperations{access: a.Access, limit: api.LimitSocketOperation})
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	srv.Use(graph.Limits{})
	srv.Use(subscriptionsOverWebSocket{})
	srv.Use(extension.FixedComplexityLimit(graph.MaxComplexity))
	srv.Use(graph.Transaction{Client: a.DB.Client, Skip: graph.SkipTransaction})
	srv.AroundFields(graph.Guard)
	srv.AroundOperations(a.Resolver.WithLoaders)
	srv.SetErrorPresenter(graph.ErrorPresenter(a.Log))
	return graphqlSockets(srv)
}

// healthz answers 200 when the database and Redis answer, 503 naming the
// failing part otherwise.
func (a *App) healthz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	var failing []string
	if err := a.DB.SQL.PingContext(ctx); err != nil {
		failing = append(failing, "database")
	}
	if err := a.KV.Ping(ctx); err != nil {
		failing = append(failing, "redis")
	}
	if len(failing) > 0 {
		c.JSON(http.StatusServiceUnavailable, gin.H{"status": "unavailable", "failing": strings.Join(failing, ",")})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

const headerRequestID = "X-Request-ID"

// requestID keeps a sane incoming X-Request-ID or makes one.
func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(headerRequestID)
		if len(id) == 0 || len(id) > 64 {
			id = uuid.NewString()
		}
		c.Set("request_id", id)
		c.Header(headerRequestID, id)
		c.Next()
	}
}
