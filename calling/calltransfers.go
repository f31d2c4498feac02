package calling

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/calltransfer"
	"switchboard/ent/predicate"
	"switchboard/ent/teammember"
)

// CallTransferPage is a page of call transfers, newest first, with the
// count of all that match.
type CallTransferPage struct {
	CallTransfers []*ent.CallTransfer
	Total         int
}

// CallTransfers returns the call transfers the viewer may see (see
// transferVisibility) with status (empty: any), newest first. Errors:
// invalid (status, page bounds), unauthenticated.
func (s *Service) CallTransfers(ctx context.Context, status string, offset, limit int, opts ...ListOption) (*CallTransferPage, error) {
	if err := pageBounds(offset, limit); err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	visible, err := transferVisibility(ctx, db)
	if err != nil {
		return nil, err
	}
	q := db.CallTransfer.Query().Where(visible)
	if status != "" {
		st := calltransfer.Status(status)
		if calltransfer.StatusValidator(st) != nil {
			return nil, apperr.Invalidf("status must be one of waiting, connected, completed, abandoned, no_answer")
		}
		q = q.Where(calltransfer.StatusEQ(st))
	}
	// Counted up to the bound, or the requested page when deeper (docs/api.md).
	total, _, err := database.CountUpTo(ctx, q, max(database.CountBound, offset+min(limit, MaxPageSize)))
	if err != nil {
		return nil, apperr.Wrap(err, "call transfer")
	}
	if applyOptions(opts).edges {
		q = q.WithCallLog()
	}
	page, err := database.PageAt(ctx, q.Order(ent.Desc(calltransfer.FieldTransferredAt), ent.Desc(calltransfer.FieldID)),
		offset, min(limit, MaxPageSize), calltransfer.IDIn)
	if err != nil {
		return nil, apperr.Wrap(err, "call transfer")
	}
	ts, err := page.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "call transfer")
	}
	return &CallTransferPage{CallTransfers: ts, Total: total}, nil
}

// CallTransfer returns a call transfer the viewer may see. Errors:
// not_found.
func (s *Service) CallTransfer(ctx context.Context, id uuid.UUID) (*ent.CallTransfer, error) {
	db := database.ClientFor(ctx, s.Client)
	visible, err := transferVisibility(ctx, db)
	if err != nil {
		return nil, err
	}
	t, err := db.CallTransfer.Query().Where(calltransfer.ID(id), visible).Only(ctx)
	return t, apperr.Wrap(err, "call transfer")
}

// transferVisibility is what the viewer may see: every transfer with
// call_logs:read (who sees every call sees every hand-off); else the
// transfers they took or that wait for them by name, and the waiting ones
// any member of one of their teams (or anyone, for no team) may answer.
func transferVisibility(ctx context.Context, db *ent.Client) (predicate.CallTransfer, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if v.Can(AllCallLogsPermission) {
		return func(*sql.Selector) {}, nil
	}
	teams, err := db.TeamMember.Query().Where(teammember.UserID(v.UserID)).
		Select(teammember.FieldTeamID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team member")
	}
	ids := make([]uuid.UUID, 0, len(teams))
	for _, t := range teams {
		if id, err := uuid.Parse(t); err == nil {
			ids = append(ids, id)
		}
	}
	waitingForMe := calltransfer.And(calltransfer.StatusEQ(calltransfer.StatusWaiting), calltransfer.AgentIDIsNil(),
		calltransfer.Or(calltransfer.TeamIDIsNil(), calltransfer.TeamIDIn(ids...)))
	return calltransfer.Or(calltransfer.AgentID(v.UserID), waitingForMe), nil
}
