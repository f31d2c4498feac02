package calling

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
	"switchboard/ent/viewer"
	"switchboard/internal/sleep"
	"switchboard/kv"
)

// Control operations routed to the node holding a call's media.
const (
	opInitiate = "initiate"
	opConnect  = "connect"
	opHangup   = "hangup"
	opHold     = "hold"
	opResume   = "resume"
	opAnswer   = "answer" // the platform's SDP answer to a business-initiated call
	opClose    = "close"  // the platform ended the call
)

// controlTimeout bounds a routed request's round trip.
const controlTimeout = 10 * time.Second

// controlRequest is one control operation on a live call.
type controlRequest struct {
	ID         string     `json:"id"`
	Reply      string     `json:"reply"`
	OrgID      uuid.UUID  `json:"org_id"`
	LogID      uuid.UUID  `json:"log_id"`
	Op         string     `json:"op"`
	TransferID uuid.UUID  `json:"transfer_id,omitempty"`
	UserID     uuid.UUID  `json:"user_id,omitempty"`
	TeamID     *uuid.UUID `json:"team_id,omitempty"`
	AgentID    *uuid.UUID `json:"agent_id,omitempty"`
	SDP        string     `json:"sdp,omitempty"`
	By         string     `json:"by,omitempty"`
}

// controlReply is a node's answer to a controlRequest.
type controlReply struct {
	SDP     string      `json:"sdp,omitempty"`
	Code    apperr.Code `json:"code,omitempty"`
	Message string      `json:"message,omitempty"`
}

// route runs req on the node that holds call req.LogID: here, or on its
// owner through Redis. A call no node holds any more (its node died) is
// ended cleanly and the request refused.
func (m *Manager) route(ctx context.Context, req controlRequest) (string, error) {
	if lc := m.local(req.LogID); lc != nil {
		return m.execLocal(ctx, lc, req)
	}
	return m.routeRemote(ctx, req.LogID, req)
}

func (m *Manager) routeRemote(ctx context.Context, logID uuid.UUID, req controlRequest) (string, error) {
	req.LogID = logID
	owner, err := m.Redis.Get(ctx, m.ownerKey(logID)).Result()
	if errors.Is(err, redis.Nil) || owner == m.NodeID {
		if req.Op != opClose && req.OrgID != uuid.Nil {
			m.finish(viewer.SystemContext(context.WithoutCancel(ctx), req.OrgID), logID, "failed", BySystem)
		}
		return "", apperr.New(apperr.Conflict, "the call is no longer live")
	}
	if err != nil {
		return "", &apperr.Error{Code: apperr.Unavailable, Message: "call control is unavailable", Err: err}
	}
	req.ID = uuid.NewString()
	req.Reply = m.Prefix + "call:reply:" + req.ID
	sub := m.Redis.Subscribe(ctx, req.Reply)
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		return "", &apperr.Error{Code: apperr.Unavailable, Message: "call control is unavailable", Err: err}
	}
	b, _ := json.Marshal(req)
	if err := m.Redis.Publish(ctx, m.controlChannel(owner), b).Err(); err != nil {
		return "", &apperr.Error{Code: apperr.Unavailable, Message: "call control is unavailable", Err: err}
	}
	wait, cancel := context.WithTimeout(ctx, controlTimeout)
	defer cancel()
	select {
	case msg := <-sub.Channel():
		var rep controlReply
		if err := json.Unmarshal([]byte(msg.Payload), &rep); err != nil {
			return "", &apperr.Error{Code: apperr.Internal, Message: "bad call control reply", Err: err}
		}
		if rep.Code != "" {
			return "", apperr.New(rep.Code, "%s", rep.Message)
		}
		return rep.SDP, nil
	case <-wait.Done():
		return "", apperr.New(apperr.Unavailable, "the node holding the call did not answer")
	}
}

// controlIdle is how long this node's control subscription may be quiet
// before it is pinged, and how long Redis may take to confirm it.
const controlIdle = 15 * time.Second

// serveControl runs the control requests other nodes route here until
// ctx is done. A lost subscription is subscribed again (requests sent
// meanwhile time out at their sender).
func (m *Manager) serveControl(ctx context.Context, sub *redis.PubSub) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := kv.Receive(ctx, sub, controlIdle, func(msg *redis.Message) {
			var req controlRequest
			if err := json.Unmarshal([]byte(msg.Payload), &req); err != nil || req.Reply == "" {
				m.Log.Warn("bad call control request", "error", err)
				return
			}
			go m.answerControl(ctx, req)
		})
		_ = sub.Close()
		if ctx.Err() != nil {
			return
		}
		m.Log.Warn("call control: subscription lost", "error", err)
		for sub = nil; sub == nil && ctx.Err() == nil; {
			if sub, err = kv.Subscribe(ctx, m.Redis, m.controlChannel(m.NodeID), controlIdle); err != nil {
				_ = sleep.For(ctx, backoff)
				backoff = min(2*backoff, 2*time.Second)
			}
		}
		backoff = 100 * time.Millisecond
	}
}

func (m *Manager) answerControl(ctx context.Context, req controlRequest) {
	rctx, cancel := context.WithTimeout(viewer.SystemContext(ctx, req.OrgID), controlTimeout)
	defer cancel()
	var rep controlReply
	lc := m.local(req.LogID)
	var err error
	if lc == nil {
		err = apperr.New(apperr.Conflict, "the call is no longer live")
	} else {
		rep.SDP, err = m.execLocal(rctx, lc, req)
	}
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			rep.Code, rep.Message = ae.Code, ae.Message
		} else {
			rep.Code, rep.Message = apperr.Internal, "call control failed"
			m.Log.Error("call control failed", "op", req.Op, "call_log_id", req.LogID, "error", err)
		}
	}
	b, _ := json.Marshal(rep)
	if err := m.Redis.Publish(rctx, req.Reply, b).Err(); err != nil {
		m.Log.Warn("answering a call control request failed", "error", err)
	}
}

// execLocal runs req on a call of this node.
func (m *Manager) execLocal(ctx context.Context, lc *liveCall, req controlRequest) (string, error) {
	switch req.Op {
	case opInitiate:
		lc.stopIVR()
		_, outcome, err := lc.startTransfer(ctx, req.TeamID, req.AgentID)
		if err == nil {
			go lc.hangUpUnanswered(outcome)
		}
		return "", err
	case opConnect:
		return lc.connectAgent(ctx, req.TransferID, req.UserID, req.SDP)
	case opHangup:
		lc.hangup(ctx, req.By)
		return "", nil
	case opHold:
		return "", lc.hold(ctx)
	case opResume:
		return "", lc.resume(ctx)
	case opAnswer:
		return "", lc.platformAnswered(req.SDP)
	case opClose:
		lc.platformEnded(ctx)
		return "", nil
	}
	return "", apperr.Invalidf("unknown call control operation %q", req.Op)
}
