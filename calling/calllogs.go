package calling

import (
	"context"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/calllog"
	"switchboard/ent/calltransfer"
	"switchboard/ent/contact"
	"switchboard/ent/ivrflow"
	"switchboard/ent/predicate"
	"switchboard/ent/user"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// AllCallLogsPermission lets a member see every call log of the
// organization; without it a member sees the calls they took (the spec's
// rule 3).
const AllCallLogsPermission = "call_logs:read"

// maxFilterLength bounds free-text filters.
const maxFilterLength = 100

// CallLogFilter narrows a list of call logs; empty fields do not filter.
type CallLogFilter struct {
	Status    string
	Account   string
	ContactID *uuid.UUID
	Direction string
	IVRFlowID *uuid.UUID
	// Phone matches part of the caller's phone number.
	Phone string
	// StartDate and EndDate (YYYY-MM-DD, both included) are days in the
	// organization's time zone.
	StartDate string
	EndDate   string
}

// CallLogPage is a page of call logs, newest first, with the count of all
// that match and the names the logs refer to.
type CallLogPage struct {
	CallLogs []*ent.CallLog
	Total    int
	Names    *Names
}

// Names are the display names of what call logs and transfers refer to,
// loaded with one query per kind.
type Names struct {
	Contacts map[uuid.UUID]string
	Agents   map[uuid.UUID]string
	Flows    map[uuid.UUID]string
}

// ListOption changes what a list loads besides its rows.
type ListOption func(*listOptions)

type listOptions struct {
	edges bool
	name  string
}

// WithEdges loads each row's related records with the page, one query per
// kind (GraphQL asks for them: call logs' transfers, transfers' call log).
// name is the GraphQL field's alias that many-edges are loaded under
// (entgql reads a list edge by the name it is asked as).
func WithEdges(name string) ListOption {
	return func(o *listOptions) { o.edges, o.name = true, name }
}

func applyOptions(opts []ListOption) listOptions {
	var o listOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// CallLogs returns the call logs the viewer may see that match f, newest
// first. Errors: invalid (a filter value, page bounds), unauthenticated.
func (s *Service) CallLogs(ctx context.Context, f CallLogFilter, offset, limit int, opts ...ListOption) (*CallLogPage, error) {
	if err := pageBounds(offset, limit); err != nil {
		return nil, err
	}
	visible, err := logVisibility(ctx)
	if err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	where, err := s.logFilter(ctx, db, f)
	if err != nil {
		return nil, err
	}
	q := db.CallLog.Query().Where(append(where, visible)...)
	// Counted up to the bound, or the requested page when deeper (docs/api.md).
	total, _, err := database.CountUpTo(ctx, q, max(database.CountBound, offset+min(limit, MaxPageSize)))
	if err != nil {
		return nil, apperr.Wrap(err, "call log")
	}
	if o := applyOptions(opts); o.edges {
		q = q.WithNamedTransfers(o.name, func(tq *ent.CallTransferQuery) {
			tq.Order(ent.Asc(calltransfer.FieldTransferredAt), ent.Asc(calltransfer.FieldID))
		})
	}
	page, err := database.PageAt(ctx, q.Order(ent.Desc(calllog.FieldStartedAt), ent.Desc(calllog.FieldID)),
		offset, min(limit, MaxPageSize), calllog.IDIn)
	if err != nil {
		return nil, apperr.Wrap(err, "call log")
	}
	logs, err := page.All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "call log")
	}
	names, err := s.names(ctx, db, logs, nil)
	if err != nil {
		return nil, err
	}
	return &CallLogPage{CallLogs: logs, Total: total, Names: names}, nil
}

// CallLogDetail is one call log with its transfers, oldest first.
type CallLogDetail struct {
	CallLog   *ent.CallLog
	Transfers []*ent.CallTransfer
	Names     *Names
}

// CallLog returns a call log the viewer may see, with its transfers.
// Errors: not_found (unknown, another organization's, or another agent's
// without call_logs:read).
func (s *Service) CallLog(ctx context.Context, id uuid.UUID) (*CallLogDetail, error) {
	l, err := s.visibleLog(ctx, id)
	if err != nil {
		return nil, err
	}
	db := database.ClientFor(ctx, s.Client)
	ts, err := db.CallTransfer.Query().Where(calltransfer.CallLogID(l.ID)).
		Order(ent.Asc(calltransfer.FieldTransferredAt), ent.Asc(calltransfer.FieldID)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "call transfer")
	}
	names, err := s.names(ctx, db, []*ent.CallLog{l}, ts)
	if err != nil {
		return nil, err
	}
	return &CallLogDetail{CallLog: l, Transfers: ts, Names: names}, nil
}

// visibleLog reads a call log the viewer may see. Errors: not_found.
func (s *Service) visibleLog(ctx context.Context, id uuid.UUID) (*ent.CallLog, error) {
	visible, err := logVisibility(ctx)
	if err != nil {
		return nil, err
	}
	l, err := database.ClientFor(ctx, s.Client).CallLog.Query().Where(calllog.ID(id), visible).Only(ctx)
	return l, apperr.Wrap(err, "call log")
}

// CheckCallLog tells whether the viewer may see call log id (as the lists
// decide): GraphQL's node(id:) checks the rows it finds with it, since it
// may have loaded only some fields. Errors: not_found.
func (s *Service) CheckCallLog(ctx context.Context, id uuid.UUID) error {
	_, err := s.visibleLog(ctx, id)
	return err
}

// logVisibility is what the viewer may see: every log with call_logs:read,
// else the logs they took.
func logVisibility(ctx context.Context) (predicate.CallLog, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if v.Can(AllCallLogsPermission) {
		return func(*sql.Selector) {}, nil
	}
	return calllog.AgentID(v.UserID), nil
}

// logFilter turns f into predicates. Errors: invalid.
func (s *Service) logFilter(ctx context.Context, db *ent.Client, f CallLogFilter) ([]predicate.CallLog, error) {
	var where []predicate.CallLog
	if f.Status != "" {
		st := calllog.Status(f.Status)
		if calllog.StatusValidator(st) != nil {
			return nil, apperr.Invalidf("status must be one of ringing, answered, completed, missed, rejected, failed")
		}
		where = append(where, calllog.StatusEQ(st))
	}
	if f.Direction != "" {
		d := calllog.Direction(f.Direction)
		if calllog.DirectionValidator(d) != nil {
			return nil, apperr.Invalidf("direction must be incoming or outgoing")
		}
		where = append(where, calllog.DirectionEQ(d))
	}
	if f.Account != "" {
		if err := checkFilterText("account", f.Account); err != nil {
			return nil, err
		}
		where = append(where, calllog.ChatAccount(f.Account))
	}
	if f.ContactID != nil {
		where = append(where, calllog.ContactID(*f.ContactID))
	}
	if f.IVRFlowID != nil {
		where = append(where, calllog.IvrFlowID(*f.IVRFlowID))
	}
	if p := strings.TrimSpace(f.Phone); p != "" {
		if err := checkFilterText("phone", p); err != nil {
			return nil, err
		}
		// ent escapes LIKE's wildcards: "%" and "_" match themselves.
		where = append(where, calllog.CallerPhoneContains(p))
	}
	if f.StartDate == "" && f.EndDate == "" {
		return where, nil
	}
	loc, err := s.orgLocation(ctx, db)
	if err != nil {
		return nil, err
	}
	var from, to time.Time
	if f.StartDate != "" {
		if from, err = parseDay("start_date", f.StartDate, loc); err != nil {
			return nil, err
		}
		where = append(where, calllog.StartedAtGTE(from))
	}
	if f.EndDate != "" {
		if to, err = parseDay("end_date", f.EndDate, loc); err != nil {
			return nil, err
		}
		to = to.AddDate(0, 0, 1)
		where = append(where, calllog.StartedAtLT(to))
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return nil, apperr.Invalidf("end_date must not be before start_date")
	}
	return where, nil
}

// parseDay reads a YYYY-MM-DD day as its start in loc. Errors: invalid.
func parseDay(field, s string, loc *time.Location) (time.Time, error) {
	d, err := time.ParseInLocation(time.DateOnly, s, loc)
	if err != nil {
		return time.Time{}, apperr.Invalidf("%s must be a date in the form YYYY-MM-DD", field)
	}
	return d, nil
}

// orgLocation is the viewer's organization's time zone (UTC when unset).
func (s *Service) orgLocation(ctx context.Context, db *ent.Client) (*time.Location, error) {
	v := viewer.FromContext(ctx)
	o, err := db.Organization.Get(ctx, v.OrgID)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	if o.Timezone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(o.Timezone)
	if err != nil {
		return time.UTC, nil
	}
	return loc, nil
}

// names loads the contact, agent and IVR flow names of logs and
// transfers, one query per kind.
func (s *Service) names(ctx context.Context, db *ent.Client, logs []*ent.CallLog, ts []*ent.CallTransfer) (*Names, error) {
	n := &Names{Contacts: map[uuid.UUID]string{}, Agents: map[uuid.UUID]string{}, Flows: map[uuid.UUID]string{}}
	var contacts, agents, flows []uuid.UUID
	for _, l := range logs {
		contacts = appendID(contacts, l.ContactID)
		agents = appendID(agents, l.AgentID)
		flows = appendID(flows, l.IvrFlowID)
	}
	for _, t := range ts {
		agents = appendID(agents, t.AgentID)
	}
	if len(contacts) > 0 {
		cs, err := db.Contact.Query().Where(contact.IDIn(contacts...)).
			Select(contact.FieldID, contact.FieldName, contact.FieldProfileName).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "contact")
		}
		for _, c := range cs {
			n.Contacts[c.ID] = firstNonEmpty(c.ProfileName, c.Name)
		}
	}
	if len(agents) > 0 {
		us, err := db.User.Query().Where(user.IDIn(agents...)).Select(user.FieldID, user.FieldFullName).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "user")
		}
		for _, u := range us {
			n.Agents[u.ID] = u.FullName
		}
	}
	if len(flows) > 0 {
		fs, err := db.IVRFlow.Query().Where(ivrflow.IDIn(flows...)).Select(ivrflow.FieldID, ivrflow.FieldName).All(ctx)
		if err != nil {
			return nil, apperr.Wrap(err, "IVR flow")
		}
		for _, f := range fs {
			n.Flows[f.ID] = f.Name
		}
	}
	return n, nil
}

func appendID(ids []uuid.UUID, id *uuid.UUID) []uuid.UUID {
	if id == nil {
		return ids
	}
	return append(ids, *id)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// viewerUser is the acting user. Errors: unauthenticated.
func viewerUser(ctx context.Context) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil || !v.HasOrg() {
		return nil, apperr.New(apperr.Unauthenticated, "calling needs a signed-in user")
	}
	return v, nil
}

// pageBounds checks an offset and limit. Errors: invalid.
func pageBounds(offset, limit int) error {
	if limit < 1 || offset < 0 || offset > MaxPage*MaxPageSize {
		return apperr.Invalidf("page and limit must be positive integers")
	}
	return nil
}

// checkFilterText bounds a text filter. Errors: invalid.
func checkFilterText(field, s string) error { return valid.Check(field, s, maxFilterLength) }
