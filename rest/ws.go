package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent/viewer"
	"switchboard/events"
)

// WebSocket timing: the client authenticates within wsAuthWindow; pings
// every wsPingEvery keep the connection alive, and a client silent for
// wsPongWait is dropped.
const (
	wsAuthWindow = 5 * time.Second
	wsPingEvery  = 25 * time.Second
	wsPongWait   = 60 * time.Second
	wsWriteWait  = 10 * time.Second
	wsBuffer     = 4096
	// wsReadLimit bounds a frame from the client; a larger one closes
	// the socket (1009).
	wsReadLimit = 4096
)

var upgrader = websocket.Upgrader{
	ReadBufferSize:  1024,
	WriteBufferSize: 4096,
	// Browsers send the app's origin; the token (single use, short lived)
	// is what authenticates, so any origin may connect.
	CheckOrigin: func(*http.Request) bool { return true },
}

// wsMessage is the shape of every message on /ws.
type wsMessage struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// WebSocket serves /ws: the client authenticates with a ws-token, given as
// the query parameter token or as the first message
// {"type":"auth","payload":{"token":"..."}} within five seconds; then it
// receives its organization's events as {type, payload}. The socket counts
// against its user's and its address's open sockets (openSocket): with a
// token in the query a refusal is an HTTP 429 before the upgrade, else a
// close frame after the auth message.
func (a *API) WebSocket(c *gin.Context) {
	token := c.Query("token")
	user := wsTokenUser(a, token)
	lease, open := a.openSocket(c, user)
	if !open {
		return
	}
	defer lease.release()
	hw := &corkingWriter{ResponseWriter: c.Writer}
	conn, err := upgrader.Upgrade(hw, c.Request, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	defer conn.Close()
	// Every frame the client sends is small, the auth message included.
	conn.SetReadLimit(wsReadLimit)
	cork := hw.conn
	v, err := a.wsAuthenticate(c.Request.Context(), conn, token)
	if err == nil && user == "" {
		err = lease.addUser(c.Request.Context(), v.UserID.String())
	}
	if err != nil {
		// Its places are free again before the client hears of it.
		lease.release()
		code, reason := websocket.ClosePolicyViolation, "authentication failed"
		if apperr.CodeOf(err) == apperr.TooMany {
			code, reason = websocket.CloseTryAgainLater, closeMessage(err)
		}
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(wsWriteWait))
		return
	}
	// A change that revokes v's access closes the socket (access.Revocations).
	revocable := a.Access.Revocations.Open(v)
	defer revocable.Close()
	sub := a.Events.Subscribe(v.OrgID, wsBuffer)
	defer sub.Close()
	ok, _ := json.Marshal(map[string]any{"user_id": v.UserID, "organization_id": v.OrgID})
	if conn.WriteJSON(wsMessage{Type: "connected", Payload: ok}) != nil {
		return
	}
	done := make(chan struct{})
	go wsReadLoop(conn, done)
	wsWriteLoop(conn, cork, sub, revocable, done)
}

// wsAuthenticate takes the token from the query or from the first message.
func (a *API) wsAuthenticate(ctx context.Context, conn *websocket.Conn, token string) (*viewer.Viewer, error) {
	if token == "" {
		_ = conn.SetReadDeadline(time.Now().Add(wsAuthWindow))
		var m struct {
			Type    string `json:"type"`
			Payload struct {
				Token string `json:"token"`
			} `json:"payload"`
		}
		if err := conn.ReadJSON(&m); err != nil {
			return nil, err
		}
		_ = conn.SetReadDeadline(time.Time{})
		if m.Type == "auth" {
			token = m.Payload.Token
		}
	}
	return a.Access.ConsumeWSToken(ctx, a.UsedTokens, token)
}

// wsReadLoop consumes client messages (pongs keep the deadline moving) and
// closes done when the client goes away.
func wsReadLoop(conn *websocket.Conn, done chan<- struct{}) {
	defer close(done)
	_ = conn.SetReadDeadline(time.Now().Add(wsPongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(wsPongWait)) })
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

// wsWriteLoop writes events and pings until the client leaves, the
// subscription ends (a client too slow to keep up is dropped by the bus)
// or the socket's access is revoked. Events that are waiting together are
// written with one system call.
func wsWriteLoop(conn *websocket.Conn, cork *corkedConn, sub *events.Subscription, revocable *access.Socket, done <-chan struct{}) {
	ping := time.NewTicker(wsPingEvery)
	defer ping.Stop()
	for {
		select {
		case <-done:
			return
		case <-revocable.Done():
			code, reason := RevokedClose(revocable.Err())
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(wsWriteWait))
			return
		case ev, ok := <-sub.C():
			if !ok {
				wsCloseEnded(conn, sub)
				return
			}
			if !wsWriteEvents(conn, cork, sub, ev) {
				return
			}
		case <-ping.C:
			if conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteWait)) != nil {
				return
			}
		}
	}
}

// wsBurst bounds the events written before a flush.
const wsBurst = 256

// wsWriteEvents writes ev and the events already waiting after it, then
// sends them at once. It reports false when the connection is done with.
func wsWriteEvents(conn *websocket.Conn, cork *corkedConn, sub *events.Subscription, ev events.Received) bool {
	_ = conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
	cork.cork()
	ok := conn.WriteMessage(websocket.TextMessage, ev.Frame) == nil
	for n := 1; ok && n < wsBurst; n++ {
		select {
		case next, open := <-sub.C():
			if !open {
				_ = cork.uncork()
				wsCloseEnded(conn, sub)
				return false
			}
			ok = conn.WriteMessage(websocket.TextMessage, next.Frame) == nil
		default:
			n = wsBurst
		}
	}
	return cork.uncork() == nil && ok
}

// wsCloseEnded tells a client why the bus ended its subscription: it fell
// behind (1013 "too slow"), or events may have been missed (1012
// "resync: ..."). Either way the client reconnects and reloads what it
// shows.
func wsCloseEnded(conn *websocket.Conn, sub *events.Subscription) {
	code, reason := websocket.CloseTryAgainLater, "too slow"
	if errors.Is(sub.Err(), events.ErrResync) {
		code, reason = websocket.CloseServiceRestart, events.ErrResync.Error()
	}
	_ = conn.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(code, reason), time.Now().Add(wsWriteWait))
}

// corkingWriter hands the WebSocket upgrader a connection whose writes can
// be held back and sent together (corkedConn).
type corkingWriter struct {
	gin.ResponseWriter
	conn *corkedConn
}

func (w *corkingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := w.ResponseWriter.Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = &corkedConn{Conn: c}
	return w.conn, rw, nil
}

// corkedConn writes straight through, except between cork and uncork,
// when it gathers what is written (frames, and any control frame another
// goroutine sends meanwhile) and uncork sends it in one write.
type corkedConn struct {
	net.Conn
	mu     sync.Mutex
	corked bool
	buf    []byte
}

func (c *corkedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corked {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *corkedConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

func (c *corkedConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.buf)
	if cap(c.buf) > 1<<20 {
		c.buf = nil // a rare large burst does not pin its buffer
	} else {
		c.buf = c.buf[:0]
	}
	return err
}
