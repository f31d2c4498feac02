package chatbot

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/messaging"
)

// maxSettle bounds the messages one batch settles on arrival (a larger
// batch waits for its tasks): its contacts and ids go into IN lists.
const maxSettle = 1000

// settle marks handled, in the transaction that stores them, the received
// messages whose answer dispatch would certainly find to be nothing, and
// returns the others, which wait for a reply task. On a busy inbox most
// messages are of contacts talking to a person (an active transfer) or
// say nothing a rule, flow or AI answers when no fallback or greeting is
// set: a few statements per batch then replace a task and two
// transactions per message. It decides as dispatch does, conservatively:
// a contact with an earlier message still waiting, or with an active
// session, is left to its task (that message's answer may change what
// this one gets), and so is every later message of a contact once one of
// its messages waits.
func (b *Bot) settle(ctx context.Context, waiting []messaging.StoredMessage) ([]messaging.StoredMessage, error) {
	if len(waiting) > maxSettle {
		return waiting, nil
	}
	db := database.ClientFor(ctx, b.Client)
	st, err := db.ChatbotSettings.Query().Only(ctx)
	if ent.IsNotFound(err) {
		return waiting, nil
	}
	if err != nil {
		return nil, err
	}
	contacts, ids := contactsAndIDs(waiting)
	busy, err := b.busyContacts(ctx, db, contacts, ids)
	if err != nil {
		return nil, err
	}
	var transfers []contactRow
	err = db.AgentTransfer.Query().Where(database.AnyOfIDs(agenttransfer.FieldContactID, contacts), agenttransfer.StatusEQ(agenttransfer.StatusActive)).
		Select(agenttransfer.FieldContactID).Scan(ctx, &transfers)
	transferred := contactSet(transfers)
	if err != nil {
		return nil, err
	}
	quiet, err := b.quietFor(ctx, db, st, contacts)
	if err != nil {
		return nil, err
	}
	var settled []uuid.UUID
	rest := waiting[:0:0]
	blocked := map[uuid.UUID]bool{}
	for _, m := range waiting {
		c := m.ContactID
		switch {
		case busy[c] || blocked[c]:
		case transferred[c] || quiet != nil && quiet(m):
			settled = append(settled, m.ID)
			continue
		}
		blocked[c] = true
		rest = append(rest, m)
	}
	if len(settled) == 0 {
		return waiting, nil
	}
	err = db.Message.Update().Where(database.AnyOfIDs(message.FieldID, settled)).SetBotHandledAt(b.now()).Exec(ctx)
	return rest, err
}

func contactsAndIDs(ms []messaging.StoredMessage) (contacts, ids []uuid.UUID) {
	seen := map[uuid.UUID]bool{}
	for _, m := range ms {
		ids = append(ids, m.ID)
		if !seen[m.ContactID] {
			seen[m.ContactID] = true
			contacts = append(contacts, m.ContactID)
		}
	}
	return contacts, ids
}

// busyContacts are the contacts with incoming messages still waiting for
// the bot besides ids.
func (b *Bot) busyContacts(ctx context.Context, db *ent.Client, contacts, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	var rows []contactRow
	err := db.Message.Query().Where(database.AnyOfIDs(message.FieldContactID, contacts), message.DirectionEQ(message.DirectionIncoming),
		message.BotHandledAtIsNil(), database.NoneOfIDs(message.FieldID, ids)).Select(message.FieldContactID).Scan(ctx, &rows)
	return contactSet(rows), err
}

// contactRow scans a selected contact_id.
type contactRow struct {
	ContactID uuid.UUID `json:"contact_id"`
}

func contactSet(rows []contactRow) map[uuid.UUID]bool {
	set := make(map[uuid.UUID]bool, len(rows))
	for _, r := range rows {
		set[r.ContactID] = true
	}
	return set
}

// quietFor returns the test of a message of a contact without a transfer:
// true when dispatch would answer it with nothing (nil: it may always
// answer something).
func (b *Bot) quietFor(ctx context.Context, db *ent.Client, st *ent.ChatbotSettings, contacts []uuid.UUID) (func(messaging.StoredMessage) bool, error) {
	if !st.Enabled {
		return func(messaging.StoredMessage) bool { return true }, nil
	}
	if st.BusinessHoursEnabled && !st.AllowAutomatedOutsideHours {
		loc, err := b.Config.OrganizationLocation(ctx)
		if err != nil {
			loc = time.UTC
		}
		if !InBusinessHours(Schedule(st.BusinessHours), loc, b.now()) {
			if blank(st.OutOfHoursMessage) {
				return func(messaging.StoredMessage) bool { return true }, nil
			}
			return nil, nil
		}
	}
	if !blank(st.FallbackMessage) || !blank(st.GreetingMessage) || st.AiEnabled && b.replier() != nil {
		return nil, nil
	}
	var sessions []contactRow
	err := db.ChatbotSession.Query().Where(database.AnyOfIDs(chatbotsession.FieldContactID, contacts), chatbotsession.StatusEQ(chatbotsession.StatusActive)).
		Select(chatbotsession.FieldContactID).Scan(ctx, &sessions)
	inSession := contactSet(sessions)
	if err != nil {
		return nil, err
	}
	flows, err := b.Config.EnabledFlows(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := b.Config.EnabledKeywords(ctx)
	if err != nil {
		return nil, err
	}
	return func(m messaging.StoredMessage) bool {
		if inSession[m.ContactID] {
			return false
		}
		text, _ := inputOf(m.Type, m.Content)
		return FlowForKeyword(flows, text, m.ChatAccount) == nil && MatchKeyword(rules, text) == nil
	}, nil
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
