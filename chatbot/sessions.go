package chatbot

import (
	"context"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/chatbotsession"
)

const sessionWhat = "chatbot session"

// SessionStatuses are a session's states.
var SessionStatuses = []string{"active", "completed", "cancelled", "timeout"}

// SessionPage is a page of sessions with the total of the filter.
type SessionPage struct {
	Sessions []*ent.ChatbotSession
	Total    int
}

// SessionsQuery returns the organization's sessions, of one status when
// status is not empty. Errors: invalid (an unknown status).
func (s *Service) SessionsQuery(ctx context.Context, status string) (*ent.ChatbotSessionQuery, error) {
	q := s.db(ctx).ChatbotSession.Query()
	if st := strings.TrimSpace(status); st != "" {
		if !slices.Contains(SessionStatuses, st) {
			return nil, apperr.Invalidf("status must be one of %s", strings.Join(SessionStatuses, ", "))
		}
		q = q.Where(chatbotsession.StatusEQ(chatbotsession.Status(st)))
	}
	return q, nil
}

// ListSessions returns a page of SessionsQuery, most recently active
// first. Errors: invalid.
func (s *Service) ListSessions(ctx context.Context, status string, p Page) (*SessionPage, error) {
	q, err := s.SessionsQuery(ctx, status)
	if err != nil {
		return nil, err
	}
	// Counted up to the bound, or the requested page when deeper (docs/api.md).
	total, _, err := database.CountUpTo(ctx, q, max(database.CountBound, p.Offset+p.Limit))
	if err != nil {
		return nil, apperr.Wrap(err, sessionWhat)
	}
	page, err := database.PageAt(ctx, q.Order(chatbotsession.ByLastActivity(sql.OrderDesc()), chatbotsession.ByID()),
		p.Offset, p.Limit, chatbotsession.IDIn)
	if err != nil {
		return nil, apperr.Wrap(err, sessionWhat)
	}
	ss, err := page.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, sessionWhat)
	}
	return &SessionPage{Sessions: ss, Total: total}, nil
}

// GetSession returns a session. Errors: not_found.
func (s *Service) GetSession(ctx context.Context, id uuid.UUID) (*ent.ChatbotSession, error) {
	ss, err := s.db(ctx).ChatbotSession.Get(ctx, id)
	return ss, apperr.Wrap(err, sessionWhat)
}
