package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// resyncCode is the close code a node sends when it may have missed
// events (its Redis subscription was lost, or another node died): the
// client is to reconnect and refetch. Its reason starts with resyncReason.
const (
	resyncCode   = websocket.CloseServiceRestart // 1012
	resyncReason = "resync"
)

// wsClient is one /ws connection to one node, reconnected (with a new
// ws token, to the same node) whenever it closes. It records which of the
// run's messages it got a message:new event for, and every close.
type wsClient struct {
	node int
	api  *api
	p    *payloads

	mu         sync.Mutex
	got        bitset
	events     int
	opens      []time.Time // connection times; closes[i] ends the connection opened at opens[i]
	closes     []closeEvent
	reconnects int
}

// closeEvent is one end of a connection: when, and the close code and
// reason (1006 when the connection broke without a close frame).
type closeEvent struct {
	At     time.Time
	Code   int
	Reason string
}

func (c closeEvent) resync() bool {
	return c.Code == resyncCode && strings.HasPrefix(c.Reason, resyncReason)
}

// run keeps the client connected until ctx ends; ready is called once
// after the first connection.
func (c *wsClient) run(ctx context.Context, ready func()) {
	first := true
	for ctx.Err() == nil {
		conn, err := c.dial(ctx)
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		c.mu.Lock()
		c.opens = append(c.opens, time.Now())
		if !first {
			c.reconnects++
		}
		c.mu.Unlock()
		if first {
			ready()
			first = false
		}
		ce := c.read(ctx, conn)
		_ = conn.Close()
		if ctx.Err() == nil {
			logf("/ws client of node %c: closed %d %q", 'A'+c.node, ce.Code, ce.Reason)
			c.mu.Lock()
			c.closes = append(c.closes, ce)
			c.mu.Unlock()
		}
	}
}

// dial connects to /ws?token= and waits for "connected".
func (c *wsClient) dial(ctx context.Context) (*websocket.Conn, error) {
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	token, err := c.api.wsToken(tctx)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(c.api.Base)
	if err != nil {
		return nil, err
	}
	u.Scheme, u.Path = "ws", "/ws"
	u.RawQuery = url.Values{"token": {token}}.Encode()
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, ReadBufferSize: 64 << 10}
	conn, _, err := d.DialContext(ctx, u.String(), nil)
	if err != nil {
		return nil, err
	}
	var hello struct {
		Type string `json:"type"`
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := conn.ReadJSON(&hello); err != nil || hello.Type != "connected" {
		_ = conn.Close()
		return nil, fmt.Errorf("ws: no connected message (%v, %q)", err, hello.Type)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return conn, nil
}

var messageNew = []byte(`"message:new"`)

// read records the run's message:new events until the connection ends,
// and returns how it ended.
func (c *wsClient) read(ctx context.Context, conn *websocket.Conn) closeEvent {
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	var ev struct {
		Type    string `json:"type"`
		Payload struct {
			ChatMessageID string `json:"chat_message_id"`
		} `json:"payload"`
	}
	for {
		_, raw, err := conn.ReadMessage()
		if err != nil {
			ce := closeEvent{At: time.Now(), Code: websocket.CloseAbnormalClosure, Reason: err.Error()}
			var cerr *websocket.CloseError
			if errors.As(err, &cerr) {
				ce.Code, ce.Reason = cerr.Code, cerr.Text
			}
			return ce
		}
		// Most frames are other events (contact:updated, ...): skip them
		// before decoding, which is much of this tool's CPU on the
		// machine it shares with the nodes.
		if !bytes.Contains(raw, messageNew) {
			continue
		}
		ev.Type, ev.Payload.ChatMessageID = "", ""
		if json.Unmarshal(raw, &ev) != nil || ev.Type != "message:new" {
			continue
		}
		if seq, ok := c.p.seqOf(ev.Payload.ChatMessageID); ok {
			c.mu.Lock()
			c.got.set(seq)
			c.events++
			c.mu.Unlock()
		}
	}
}

// state copies what the client recorded.
func (c *wsClient) state() (bitset, []time.Time, []closeEvent, int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got.clone(), append([]time.Time(nil), c.opens...), append([]closeEvent(nil), c.closes...), c.events, c.reconnects
}

// bitset is a set of small non-negative integers (message seqs).
type bitset []uint64

func (b *bitset) set(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b bitset) has(i int) bool {
	return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0
}

func (b bitset) clone() bitset { return append(bitset(nil), b...) }
