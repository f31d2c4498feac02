package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent/viewer"
	"switchboard/rest"
)

// A GraphQL WebSocket is held to what a REST request is: it authenticates
// once, in its init message, and then every operation it sends is counted
// in its identity's rate limit and authorized again against the current
// state of its credential (the session or API key it was opened with),
// running as the viewer that credential gives now. A change that revokes
// the credential closes the socket at once (access.Revocations), with a
// close frame saying why.

// graphqlSocket is one GraphQL WebSocket. The upgrade request's context
// carries it, from before the transport accepts the connection (whose
// close frame it explains) to the init message (which registers it for
// revocation) and every operation.
type graphqlSocket struct {
	mu        sync.Mutex
	revocable *access.Socket
}

type graphqlSocketKey struct{}

// graphqlSocketOf is the socket whose request or operation ctx is, nil
// for a plain HTTP request.
func graphqlSocketOf(ctx context.Context) *graphqlSocket {
	gs, _ := ctx.Value(graphqlSocketKey{}).(*graphqlSocket)
	return gs
}

// socket is the socket as revocation knows it, nil before its init.
func (gs *graphqlSocket) socket() *access.Socket {
	if gs == nil {
		return nil
	}
	gs.mu.Lock()
	defer gs.mu.Unlock()
	return gs.revocable
}

func (gs *graphqlSocket) attach(s *access.Socket) {
	if gs == nil {
		return // served without graphqlSockets: closes say "terminated"
	}
	gs.mu.Lock()
	gs.revocable = s
	gs.mu.Unlock()
}

// graphqlSockets gives each WebSocket upgrade of next its graphqlSocket.
func graphqlSockets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			r = r.WithContext(context.WithValue(r.Context(), graphqlSocketKey{}, &graphqlSocket{}))
		}
		next.ServeHTTP(w, r)
	})
}

// graphqlInit authenticates a GraphQL WebSocket from its init message and
// registers it for revocation until the connection ends (its request's
// context is done): a revocation cancels the context the transport runs
// the socket in, which closes it and ends its operations and
// subscriptions.
func (a *App) graphqlInit(api *rest.API) transport.WebsocketInitFunc {
	return func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		v, err := api.AuthenticateInit(ctx, p.GetString("token"), p.Authorization(), p.GetString("apiKey"))
		if apperr.CodeOf(err) == apperr.TooMany {
			// Like HTTP 429: the user holds all their sockets.
			ctx = transport.WithWebsocketCloseCode(ctx, 4429)
			return transport.AppendCloseReason(ctx, "too many open WebSocket connections for this user"), nil, err
		}
		if err != nil {
			// graphql-transport-ws expects 4403 for refused credentials.
			ctx = transport.WithWebsocketCloseCode(ctx, 4403)
			return transport.AppendCloseReason(ctx, "forbidden"), nil, err
		}
		revocable := a.Access.Revocations.Open(v)
		context.AfterFunc(ctx, revocable.Close)
		graphqlSocketOf(ctx).attach(revocable)
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-revocable.Done():
				cancel()
			case <-ctx.Done():
			}
		}()
		return viewer.NewContext(ctx, v), nil, nil
	}
}

// revocableWebsocket accepts GraphQL WebSockets whose close frame says why
// a revoked one was closed (rest.RevokedClose) instead of the transport's
// "terminated".
type revocableWebsocket struct {
	transport.WebsocketImplementation
}

func (i revocableWebsocket) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	conn, err := i.WebsocketImplementation.Accept(w, r, o)
	if err != nil {
		return nil, err
	}
	return &revocableConn{WebsocketConn: conn, gs: graphqlSocketOf(r.Context())}, nil
}

// revocableConn is a GraphQL WebSocket connection that closes with the
// cause of its revocation.
type revocableConn struct {
	transport.WebsocketConn
	gs *graphqlSocket
}

func (c *revocableConn) WriteClose(code int, message string) error {
	if s := c.gs.socket(); s != nil && s.Err() != nil {
		code, message = rest.RevokedClose(s.Err())
	}
	return c.WebsocketConn.WriteClose(code, message)
}

// SetReadLimit and SetReadDeadline pass the transport's optional
// interfaces through to the connection.
func (c *revocableConn) SetReadLimit(limit int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

func (c *revocableConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}

// socketOperations is the gqlgen extension that holds each operation of
// a GraphQL WebSocket to what the REST guard holds a request to.
type socketOperations struct {
	access *access.Service
	// limit counts an operation in its identity's rate limit
	// (rest.API.LimitSocketOperation).
	limit func(context.Context, *viewer.Viewer) error
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationInterceptor
} = socketOperations{}

func (socketOperations) ExtensionName() string { return "SocketOperations" }

func (socketOperations) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters counts the operation in the rate limit of the
// identity the socket acts as, before anything else is done with it (a
// flood of operations that do not even parse is counted too).
func (e socketOperations) MutateOperationParameters(ctx context.Context, _ *graphql.RawParams) *gqlerror.Error {
	s := graphqlSocketOf(ctx).socket()
	if s == nil {
		return nil
	}
	if err := e.limit(ctx, s.Viewer()); err != nil {
		return socketRefusal(err)
	}
	return nil
}

// InterceptOperation rebuilds the viewer from the socket's credential and
// runs the operation as that viewer. A credential that no longer holds, or
// whose role or permissions changed since the socket opened, refuses the
// operation and then closes the socket.
func (e socketOperations) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	s := graphqlSocketOf(ctx).socket()
	if s == nil {
		return next(ctx)
	}
	fresh, err := e.access.Reauthorize(ctx, s.Viewer())
	if err == nil {
		err = s.Stale(fresh)
	}
	if err != nil {
		return refuseOperation(s, err)
	}
	return next(viewer.NewContext(ctx, fresh))
}

// refuseOperation answers the operation with err and, when err ends the
// socket's access, revokes the socket once the answer is written (the
// transport asks for a next answer after writing one).
func refuseOperation(s *access.Socket, err error) graphql.ResponseHandler {
	answered := false
	return func(context.Context) *graphql.Response {
		if !answered {
			answered = true
			return &graphql.Response{Errors: gqlerror.List{socketRefusal(err)}}
		}
		if access.Revokes(err) {
			s.Revoke(err)
		}
		return nil
	}
}

// socketRefusal is err as a GraphQL error with its code in extensions.code
// (as graph.ErrorPresenter shows it).
func socketRefusal(err error) *gqlerror.Error {
	var ae *apperr.Error
	if !errors.As(apperr.Wrap(err, "viewer"), &ae) {
		ae = apperr.New(apperr.Internal, "internal error")
	}
	gqlErr := gqlerror.Errorf("%s", ae.Message)
	errcode.Set(gqlErr, string(ae.Code))
	return gqlErr
}
