package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/campaign"
	"switchboard/ent/contact"
	"switchboard/ent/message"
)

// RecentMessages is how many messages the dashboard lists.
const RecentMessages = 10

// DashboardStats are the dashboard's totals over a period, each with its
// change in percent against the period of the same length just before.
type DashboardStats struct {
	// TotalMessages counts the messages (both directions) created in the
	// period.
	TotalMessages  int     `json:"total_messages"`
	MessagesChange float64 `json:"messages_change"`
	// TotalContacts counts the contacts created in the period.
	TotalContacts  int     `json:"total_contacts"`
	ContactsChange float64 `json:"contacts_change"`
	// ChatbotSessions counts the chatbot sessions started in the period.
	ChatbotSessions int     `json:"chatbot_sessions"`
	ChatbotChange   float64 `json:"chatbot_change"`
	// CampaignsSent counts the campaigns started in the period.
	CampaignsSent   int     `json:"campaigns_sent"`
	CampaignsChange float64 `json:"campaigns_change"`
}

// RecentMessage is one of the period's latest messages.
type RecentMessage struct {
	ID          uuid.UUID `json:"id"`
	ContactID   uuid.UUID `json:"contact_id"`
	ContactName string    `json:"contact_name"`
	// Content is the text of the message, or its type in brackets
	// ("[image]") when it has none.
	Content   string    `json:"content"`
	Direction string    `json:"direction"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

// Dashboard is the dashboard's answer.
type Dashboard struct {
	Stats          DashboardStats   `json:"stats"`
	RecentMessages []*RecentMessage `json:"recent_messages"`
}

// Dashboard counts the organization's messages, new contacts, chatbot
// sessions and started campaigns of p and of the period before, and lists
// the latest messages of p. Errors: unauthenticated.
func (s *Service) Dashboard(ctx context.Context, p Period) (*Dashboard, error) {
	if _, err := viewerOf(ctx); err != nil {
		return nil, err
	}
	db := s.db(ctx)
	prev := p.Previous()
	days, err := s.dayCounts(ctx, prev.From, p.To)
	if err != nil {
		return nil, err
	}
	sum := func(q Period) dayNumbers {
		var n dayNumbers
		for d, c := range days {
			if !d.Before(q.From) && d.Before(q.To) {
				n.Messages, n.Contacts, n.Sessions = n.Messages+c.Messages, n.Contacts+c.Contacts, n.Sessions+c.Sessions
			}
		}
		return n
	}
	cur, before := sum(p), sum(prev)
	d := &Dashboard{RecentMessages: []*RecentMessage{}}
	st := &d.Stats
	st.TotalMessages, st.MessagesChange = int(cur.Messages), Change(float64(before.Messages), float64(cur.Messages))
	st.TotalContacts, st.ContactsChange = int(cur.Contacts), Change(float64(before.Contacts), float64(cur.Contacts))
	st.ChatbotSessions, st.ChatbotChange = int(cur.Sessions), Change(float64(before.Sessions), float64(cur.Sessions))
	// Campaigns are few: counted live.
	campaigns := func(q Period) (int, error) {
		return db.Campaign.Query().Where(campaign.StartedAtGTE(q.From), campaign.StartedAtLT(q.To)).Count(ctx)
	}
	n, err := campaigns(p)
	if err != nil {
		return nil, apperr.Wrap(err, "campaigns")
	}
	m, err := campaigns(prev)
	if err != nil {
		return nil, apperr.Wrap(err, "campaigns")
	}
	st.CampaignsSent, st.CampaignsChange = n, Change(float64(m), float64(n))
	msgs, err := db.Message.Query().
		Where(message.CreatedAtGTE(p.From), message.CreatedAtLT(p.To)).
		Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)).
		Limit(RecentMessages).
		WithContact(func(q *ent.ContactQuery) {
			q.Select(contact.FieldID, contact.FieldName, contact.FieldProfileName, contact.FieldPhoneNumber)
		}).
		All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "messages")
	}
	for _, m := range msgs {
		r := &RecentMessage{
			ID: m.ID, ContactID: m.ContactID, Content: preview(m), Direction: string(m.Direction),
			Status: string(m.Status), CreatedAt: m.CreatedAt,
		}
		if c := m.Edges.Contact; c != nil {
			r.ContactName = contactName(c)
		}
		d.RecentMessages = append(d.RecentMessages, r)
	}
	return d, nil
}

// contactName is the name a person sees for a contact.
func contactName(c *ent.Contact) string {
	switch {
	case c.Name != "":
		return c.Name
	case c.ProfileName != "":
		return c.ProfileName
	}
	return c.PhoneNumber
}

// maxPreview bounds a recent message's text.
const maxPreview = 200

// preview is a message's text, or its type in brackets.
func preview(m *ent.Message) string {
	for _, k := range []string{"body", "caption", "text"} {
		if s, ok := m.Content[k].(string); ok && strings.TrimSpace(s) != "" {
			r := []rune(s)
			if len(r) > maxPreview {
				return string(r[:maxPreview]) + "…"
			}
			return s
		}
	}
	return fmt.Sprintf("[%s]", m.MessageType)
}

// dayCounts returns the dashboard counts of the days of [from, to) that
// have any: the settled days from the rollups, the others live.
func (s *Service) dayCounts(ctx context.Context, from, to time.Time) (map[time.Time]*dayNumbers, error) {
	out, err := s.ensure(ctx, from, to)
	if err != nil {
		return nil, err
	}
	if f := later(from, settledEnd(s.now())); f.Before(to) {
		live, err := s.countDays(ctx, s.db(ctx), []span{{From: f, To: to}})
		if err != nil {
			return nil, err
		}
		for d, n := range live {
			out[d] = n
		}
	}
	return out, nil
}
