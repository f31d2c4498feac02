package messaging

import (
	"context"
	"sort"
	"time"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/parkedstatus"
)

// earlier lists the states a status may move a message from: statuses
// only move forward (pending → sent → delivered → read), and failed may
// come from any state but failed.
var earlier = map[message.Status][]message.Status{
	message.StatusSent:      {message.StatusPending},
	message.StatusDelivered: {message.StatusPending, message.StatusSent},
	message.StatusRead:      {message.StatusPending, message.StatusSent, message.StatusDelivered},
	message.StatusFailed:    {message.StatusPending, message.StatusSent, message.StatusDelivered, message.StatusRead},
}

// CanMove reports whether a message in status from may move to status to.
func CanMove(from, to message.Status) bool {
	for _, s := range earlier[to] {
		if s == from {
			return true
		}
	}
	return false
}

// StatusUpdate is the platform's report of an outgoing message's status.
type StatusUpdate struct {
	ChatMessageID string
	// Status is the platform's value (sent, delivered, read, failed).
	Status string
	// Reason is the platform's error for failed.
	Reason    string
	Timestamp time.Time
	// CallbackData is the biz_opaque_callback_data the send gave, echoed
	// by the platform (campaign sends name their recipient in it).
	CallbackData string
}

// applyStatus moves the message with platform id chatMessageID to status
// when that is forward. It reports whether a message changed. c may be a
// transaction's client; ctx carries the organization's viewer.
func applyStatus(ctx context.Context, c *ent.Client, chatMessageID string, status message.Status, reason string) (bool, error) {
	from, ok := earlier[status]
	if !ok {
		return false, nil
	}
	upd := c.Message.Update().Where(message.ChatMessageID(chatMessageID), message.StatusIn(from...)).SetStatus(status)
	if status == message.StatusFailed {
		upd.SetErrorMessage(reason)
	}
	n, err := upd.Save(ctx)
	return n > 0, err
}

// ApplyParked applies the statuses that arrived before the message with
// platform id chatMessageID was stored, in order, and forgets them. It
// reports whether the message changed. The send path calls it once it
// has stored the platform's message id.
func ApplyParked(ctx context.Context, c *ent.Client, chatMessageID string) (bool, error) {
	parked, err := c.ParkedStatus.Query().Where(parkedstatus.ChatMessageID(chatMessageID)).All(ctx)
	if err != nil || len(parked) == 0 {
		return false, err
	}
	order := map[parkedstatus.Status]int{"sent": 1, "delivered": 2, "read": 3, "failed": 4}
	sort.Slice(parked, func(i, j int) bool { return order[parked[i].Status] < order[parked[j].Status] })
	changed := false
	for _, p := range parked {
		applied, err := applyStatus(ctx, c, chatMessageID, message.Status(p.Status), p.ErrorMessage)
		if err != nil {
			return false, err
		}
		changed = changed || applied
	}
	_, err = c.ParkedStatus.Delete().Where(parkedstatus.ChatMessageID(chatMessageID)).Exec(ctx)
	return changed, err
}

// moved is where a batch of statuses takes one message.
type moved struct {
	status message.Status
	reason string
}

// applyStatuses moves messages forward by a batch of the platform's status
// reports, in order, with a few statements whatever the batch's size: the
// messages are read once, the moves worked out in memory and written with
// one UPDATE per resulting status (and failure reason). A status for a
// message not stored yet is parked for the send path. It returns the
// messages that changed. ctx carries the organization's viewer and the
// transaction of db.
func (s *Service) applyStatuses(ctx context.Context, db *ent.Client, updates []StatusUpdate) ([]*ent.Message, error) {
	var valid []StatusUpdate
	ids := map[string]bool{}
	for _, u := range updates {
		if _, ok := earlier[message.Status(u.Status)]; !ok {
			s.log().Info("webhook status not handled; acknowledged", "status", u.Status)
			continue
		}
		valid = append(valid, u)
		ids[u.ChatMessageID] = true
	}
	if len(valid) == 0 {
		return nil, nil
	}
	current, err := messagesByChatID(ctx, db, keys(ids))
	if err != nil {
		return nil, err
	}
	state := make(map[string]message.Status, len(current))
	for id, m := range current {
		state[id] = m.Status
	}
	moves := map[string]moved{}
	var park []*ent.ParkedStatusCreate
	parked := map[[2]string]bool{}
	for _, u := range valid {
		to := message.Status(u.Status)
		from, stored := state[u.ChatMessageID]
		if !stored {
			if key := [2]string{u.ChatMessageID, u.Status}; !parked[key] {
				parked[key] = true
				ts := u.Timestamp
				if ts.IsZero() {
					ts = s.now()
				}
				park = append(park, db.ParkedStatus.Create().SetChatMessageID(u.ChatMessageID).
					SetStatus(parkedstatus.Status(to)).SetErrorMessage(u.Reason).SetPlatformTimestamp(ts))
			}
			continue
		}
		if CanMove(from, to) {
			state[u.ChatMessageID] = to
			mv := moved{status: to}
			if to == message.StatusFailed {
				mv.reason = u.Reason
			}
			moves[u.ChatMessageID] = mv
		}
	}
	if err := writeMoves(ctx, db, moves); err != nil {
		return nil, err
	}
	err = database.InChunks(park, len(parkedstatus.Columns), func(part []*ent.ParkedStatusCreate) error {
		return db.ParkedStatus.CreateBulk(part...).
			OnConflictColumns(parkedstatus.FieldChatMessageID, parkedstatus.FieldStatus).DoNothing().Exec(ctx)
	})
	if err != nil || len(moves) == 0 {
		return nil, err
	}
	after, err := messagesByChatID(ctx, db, keys(moves))
	if err != nil {
		return nil, err
	}
	changed := make([]*ent.Message, 0, len(after))
	for id, m := range after {
		if m.Status == moves[id].status {
			changed = append(changed, m)
		}
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i].CreatedAt.Before(changed[j].CreatedAt) })
	return changed, nil
}

// writeMoves writes the moves with one UPDATE per (status, reason), each
// still guarded by the forward-only rule: a message another transaction
// moved meanwhile is not taken back.
func writeMoves(ctx context.Context, db *ent.Client, moves map[string]moved) error {
	groups := map[moved][]string{}
	for id, mv := range moves {
		groups[mv] = append(groups[mv], id)
	}
	for mv, ids := range groups {
		err := database.InChunks(ids, 1, func(part []string) error {
			upd := db.Message.Update().
				Where(database.AnyOf(message.FieldChatMessageID, part), message.StatusIn(earlier[mv.status]...)).SetStatus(mv.status)
			if mv.status == message.StatusFailed {
				upd.SetErrorMessage(truncate(mv.reason, maxErrorMessage))
			}
			return upd.Exec(ctx)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// messagesByChatID reads the messages with the given platform ids.
func messagesByChatID(ctx context.Context, db *ent.Client, ids []string) (map[string]*ent.Message, error) {
	out := make(map[string]*ent.Message, len(ids))
	err := database.InChunks(ids, 1, func(part []string) error {
		ms, err := db.Message.Query().Where(database.AnyOf(message.FieldChatMessageID, part)).All(ctx)
		for _, m := range ms {
			out[*m.ChatMessageID] = m
		}
		return err
	})
	return out, err
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
