package inbound

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"switchboard/calling"
	"switchboard/ent"
	"switchboard/messaging"
)

// CallEvents stores the platform's call events and call permission replies
// of one organization, in the transaction ctx carries (calling.Manager):
// idempotent, since a delivery can come twice; live work (answering the
// call) starts after the commit.
type CallEvents interface {
	StoreCallEvents(ctx context.Context, orgID uuid.UUID, evs []calling.PlatformEvent, replies []calling.PermissionReply) error
}

// callEvent is one element of the calls field's value.calls.
type callEvent struct {
	ID        string `json:"id"`
	From      string `json:"from"`
	To        string `json:"to"`
	Event     string `json:"event"`
	Direction string `json:"direction"`
	Timestamp string `json:"timestamp"`
	Status    string `json:"status"`
	Duration  flexID `json:"duration"`
	Session   *struct {
		SDPType string `json:"sdp_type"`
		SDP     string `json:"sdp"`
	} `json:"session"`
	CallbackData string `json:"biz_opaque_callback_data"`
}

// callWork is what one organization's deliveries bring for calling.
type callWork struct {
	events  []calling.PlatformEvent
	replies []calling.PermissionReply
}

// addCallChange reads a calls field change of acc's phone number.
func (s *Service) addCallChange(w *callWork, acc *ent.Account, v changeValue) {
	names := map[string]string{}
	for _, c := range v.Contacts {
		names[c.WaID] = c.Profile.Name
	}
	for _, c := range v.Calls {
		if c.ID == "" || (c.Event != calling.EventConnect && c.Event != calling.EventTerminate) {
			s.Log.Warn("webhook call event without id or of an unknown kind skipped", "event", c.Event)
			continue
		}
		ev := calling.PlatformEvent{
			Account: acc, CallID: c.ID, Kind: c.Event, Direction: c.Direction, From: c.From, To: c.To,
			Timestamp: s.eventTime(c.Timestamp), Status: c.Status, Duration: durationSeconds(c.Duration),
			CallbackData: c.CallbackData,
		}
		ev.ProfileName = names[ev.Contact()]
		if c.Session != nil {
			ev.SDPType, ev.SDP = c.Session.SDPType, c.Session.SDP
		}
		w.events = append(w.events, ev)
	}
	for _, st := range v.Statuses {
		if st.ID == "" || st.Status == "" {
			continue
		}
		w.events = append(w.events, calling.PlatformEvent{
			Account: acc, CallID: st.ID, Kind: calling.EventStatus, To: st.RecipientID,
			Timestamp: s.eventTime(st.Timestamp), Status: st.Status, CallbackData: st.CallbackData,
		})
	}
}

// permissionReply reads a call_permission_reply interactive message.
func (s *Service) permissionReply(acc *ent.Account, m rawMessage) (calling.PermissionReply, bool) {
	if m.str("type") != "interactive" {
		return calling.PermissionReply{}, false
	}
	in := m.obj("interactive")
	if t, _ := in["type"].(string); t != "call_permission_reply" {
		return calling.PermissionReply{}, false
	}
	r, _ := in["call_permission_reply"].(map[string]any)
	resp, _ := r["response"].(string)
	permanent, _ := r["is_permanent"].(bool)
	reply := calling.PermissionReply{Account: acc, From: m.str("from"), Accepted: resp == "accept", Permanent: permanent}
	if exp, ok := r["expiration_timestamp"].(float64); ok && reply.Accepted && !permanent && exp > 0 {
		t := time.Unix(int64(exp), 0).UTC()
		reply.ExpiresAt = &t
	}
	return reply, reply.From != ""
}

func (s *Service) eventTime(raw string) time.Time {
	if ts, ok := parseTimestamp(raw); ok {
		return ts
	}
	return s.now()
}

// durationSeconds reads a call's duration; anything but a whole number
// of seconds is 0.
func durationSeconds(d flexID) int {
	n, err := strconv.Atoi(string(d))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// hasPermissionReply reports whether a messages change holds a call
// permission reply (cheap: most changes hold none).
func hasPermissionReply(v changeValue) bool {
	for _, m := range v.Messages {
		if m.str("type") == "interactive" {
			if t, _ := m.obj("interactive")["type"].(string); t == "call_permission_reply" {
				return true
			}
		}
	}
	return false
}

// addPermissionReplies collects a messages change's permission replies;
// the messages themselves are stored like any other.
func (s *Service) addPermissionReplies(w *callWork, acc *ent.Account, v changeValue) {
	for _, m := range v.Messages {
		if r, ok := s.permissionReply(acc, m); ok {
			w.replies = append(w.replies, r)
		}
	}
}

// storeCalls hands each organization's call work to Calls, in the order
// of the organizations' inboxes (then any organization with calls only).
func (s *Service) storeCalls(ctx context.Context, inboxes []messaging.Inbox, calls map[uuid.UUID]*callWork) error {
	if len(calls) == 0 {
		return nil
	}
	if s.Calls == nil {
		s.Log.Info("webhook call events dropped: calling is not wired", "organizations", len(calls))
		return nil
	}
	order := make([]uuid.UUID, 0, len(calls))
	for _, in := range inboxes {
		if calls[in.OrgID] != nil {
			order = append(order, in.OrgID)
		}
	}
	for org := range calls {
		if !slices.Contains(order, org) {
			order = append(order, org)
		}
	}
	for _, org := range order {
		w := calls[org]
		if err := s.Calls.StoreCallEvents(ctx, org, w.events, w.replies); err != nil {
			return err
		}
	}
	return nil
}
