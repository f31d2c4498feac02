// Package contacts owns the organization's contacts: their list and
// search, creating one (a normalised phone number, unique per
// organization), changing its fields (profile name, the chat_account its
// conversation is held from, tags, metadata), assigning it to a member,
// deleting it, marking its conversation read, and the contact info
// panel's data (the active chatbot session and the layout of the
// metadata). Every change records contact:new or contact:updated once,
// in its transaction.
//
// It must not touch the contact's messages beyond marking them read (the
// message lifecycle is messaging's), the tag catalogue (tags/) or
// transfers (transfers/); transports (rest/, graph/) call its Service and
// it imports neither.
package contacts

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/chatbotflow"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/organization"
	"switchboard/ent/organizationmember"
	"switchboard/ent/predicate"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/valid"
	"switchboard/messaging"
	"switchboard/tags"
)

// Limits of a contact's fields.
const (
	MaxTags        = 50
	MaxFieldLength = 255
)

// errDuplicatePhone is the answer to a second contact with the same number.
const errDuplicatePhone = "a contact with this phone number already exists"

// Service is the contacts' operations.
type Service struct {
	Client *ent.Client
	// Events records contact:new and contact:updated.
	Events *events.Bus
	// Postgres: the database is PostgreSQL (a search's count reads the
	// trigram indexes, see countSearch).
	Postgres bool
}

// Filter selects contacts of a list.
type Filter struct {
	// Search matches profile_name or name (case-insensitive), or, when
	// it reads as a phone number (phoneDigits), the phone number
	// containing its digits.
	Search string
	// Tags matches contacts holding at least one of them.
	Tags []string
	// Narrowed tells that the caller adds predicates of its own to
	// Query's result (GraphQL's where): the organization's counter is
	// then not the list's total.
	Narrowed bool
}

// unfiltered reports whether f selects every contact of the organization.
func (f Filter) unfiltered() bool {
	return !f.Narrowed && strings.TrimSpace(f.Search) == "" && len(f.tagNames()) == 0
}

// searchOnly reports whether f is a search alone (no tags, nothing
// narrowed).
func (f Filter) searchOnly() bool {
	return !f.Narrowed && strings.TrimSpace(f.Search) != "" && len(f.tagNames()) == 0
}

// tagsOnly reports whether f selects the contacts holding one of its tags
// and nothing more: what the tag order answers (tagorder.go).
func (f Filter) tagsOnly() bool {
	return !f.Narrowed && strings.TrimSpace(f.Search) == "" && len(f.tagNames()) > 0
}

// check refuses a filter with a NUL character or more than MaxTags tags.
func (f Filter) check() error {
	if err := valid.NoNUL("search", f.Search); err != nil {
		return err
	}
	for _, t := range f.Tags {
		if err := valid.NoNUL("tags", t); err != nil {
			return err
		}
	}
	if len(f.tagNames()) > MaxTags {
		return apperr.Invalidf("tags: at most %d tags in a filter", MaxTags)
	}
	return nil
}

// tagNames is f's tags, trimmed, without empty names and repeats, in
// their order.
func (f Filter) tagNames() []string {
	var names []string
	seen := make(map[string]bool, len(f.Tags))
	for _, t := range f.Tags {
		if t = strings.TrimSpace(t); t != "" && !seen[t] {
			seen[t] = true
			names = append(names, t)
		}
	}
	return names
}

// CreateInput is a new contact. Nil fields take their defaults.
type CreateInput struct {
	PhoneNumber string
	ProfileName *string
	ChatAccount *string
	Tags        []string
	Metadata    map[string]any
}

// UpdateInput changes the non-nil fields of a contact. Tags and Metadata
// replace the stored values when not nil.
type UpdateInput struct {
	ProfileName    *string
	ChatAccount    *string
	Tags           []string
	Metadata       map[string]any
	AssignedUserID *uuid.UUID
	// ClearAssignedAgent unassigns the contact.
	ClearAssignedAgent bool
}

// Page is one page of contacts with the total of the filter.
type Page struct {
	Contacts []*ent.Contact
	// Total is exact unless TotalCapped (see Count).
	Total       int
	TotalCapped bool
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Query returns the contacts of the viewer's organization matching f.
// Errors: invalid (a NUL character in the filter, more than MaxTags tags).
func (s *Service) Query(ctx context.Context, f Filter) (*ent.ContactQuery, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	q := s.db(ctx).Contact.Query()
	if t := strings.TrimSpace(f.Search); t != "" {
		names := contact.Or(contact.ProfileNameContainsFold(t), contact.NameContainsFold(t))
		if s.Postgres { // the names' index finds them (database.ContactNames)
			names = contact.And(namesContainFold(t), names)
		}
		preds := []predicate.Contact{names}
		if digits := phoneDigits(t); digits != "" {
			preds = append(preds, contact.PhoneNumberContains(digits))
		}
		q = q.Where(contact.Or(preds...))
	}
	var tagged []predicate.Contact
	for _, t := range f.tagNames() {
		tagged = append(tagged, tags.HasTag(t))
	}
	if len(tagged) > 0 {
		q = q.Where(contact.Or(tagged...))
	}
	return q, nil
}

// namesContainFold matches contacts whose name and profile name, as the
// names' search index holds them (database.ContactNames), contain t,
// case-insensitively.
func namesContainFold(t string) predicate.Contact {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("((" + s.C(contact.FieldName) + " || chr(31)) || " + s.C(contact.FieldProfileName) + ") ILIKE ").
				Arg("%" + database.EscapeLike(t) + "%")
		}))
	}
}

// phoneDigits is the digits of a search that reads as a phone number
// (digits, and the +, spaces, dashes, dots and parentheses numbers are
// written with), empty for any other: "Shop 24" is a name, and searching
// its digits in every phone number would match rows by the thousand.
func phoneDigits(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && !strings.ContainsRune("+-(). ", r) }) >= 0 {
		return ""
	}
	return onlyDigits(s)
}

func onlyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// List returns a page of Query, the most recent conversations first
// (contacts without messages last, newest first), with the total as Count
// gives it (bounded past the requested page). The total is counted
// first: how a search reads its page depends on it (see pageIDs). The
// page's ids are read first, from the inbox-order index alone on
// PostgreSQL (an offset walks index entries, not rows), then their rows.
// Errors: invalid (a NUL character in the filter).
func (s *Service) List(ctx context.Context, f Filter, offset, limit int) (*Page, error) {
	page := &Page{Contacts: []*ent.Contact{}}
	ids, err := s.listIDs(ctx, f, offset, limit, page)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	if len(ids) > 0 {
		if page.Contacts, err = s.byIDs(ctx, ids); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// listIDs sets page's total and returns the ids of its contacts. A search
// that reads the trigram bitmaps (see countSearch) reads its matches' ids
// and order with its count, in one statement: when no more than the
// bound match, they are the total and, sorted, the page.
func (s *Service) listIDs(ctx context.Context, f Filter, offset, limit int, page *Page) ([]uuid.UUID, error) {
	bound := max(CountBound, offset+limit)
	if !s.searchesBitmaps(ctx, f) {
		var err error
		if page.Total, page.TotalCapped, err = s.Count(ctx, f, nil, bound); err != nil {
			return nil, err
		}
		return s.pageIDs(ctx, f, offset, limit, page.TotalCapped)
	}
	var matches []*ent.Contact
	err := s.fromBitmaps(ctx, func(ctx context.Context) error {
		q, err := s.Query(ctx, f) // in the transaction, under its settings
		if err == nil {
			matches, err = q.Limit(bound+1).
				Select(contact.FieldID, contact.FieldLastMessageAt, contact.FieldCreatedAt).All(ctx)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(matches) > bound {
		page.Total, page.TotalCapped = bound+1, true
		return s.pageIDs(ctx, f, offset, limit, true)
	}
	page.Total = len(matches)
	slices.SortFunc(matches, inboxCompare)
	ids := make([]uuid.UUID, 0, limit)
	for _, c := range matches[min(offset, len(matches)):min(offset+limit, len(matches))] {
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// inboxCompare orders contacts as inboxOrder does (PostgreSQL compares
// uuids bytewise).
func inboxCompare(a, b *ent.Contact) int {
	switch {
	case a.LastMessageAt == nil && b.LastMessageAt != nil:
		return 1
	case a.LastMessageAt != nil && b.LastMessageAt == nil:
		return -1
	case a.LastMessageAt != nil:
		if c := b.LastMessageAt.Compare(*a.LastMessageAt); c != 0 {
			return c
		}
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return bytes.Compare(a.ID[:], b.ID[:])
}

// inboxOrder orders q as the inbox: the most recent conversations first,
// contacts without messages last, newest first.
func inboxOrder(q *ent.ContactQuery) *ent.ContactQuery {
	return q.Order(contact.ByLastMessageAt(sql.OrderDesc(), sql.OrderNullsLast()),
		contact.ByCreatedAt(sql.OrderDesc()), contact.ByID())
}

// probeWindow is how many of an organization's first contacts in inbox
// order a filtered page looks among first (see pageIDs); a page deeper
// than a quarter of it is not probed.
const probeWindow = 2_000

// pageIDs returns the ids of one page of the contacts f selects, in inbox
// order; many tells that more than the page's depth match (List's bounded
// count). Unfiltered, or filtered on what no index finds (a term without
// a trigram), the inbox-order index is walked and the filter tested on
// each row, stopping at the page: fast while matches are frequent among
// the most recent conversations. On PostgreSQL a search or a tag filter
// cannot count on that: after a campaign brought 650,000 new contacts,
// none of them "vip", that walk tested all of them (2.6 s for the first
// page, 37 s p50 under 20 agents, bench/scale). A tag filter reads the
// tag order. A search's page is first looked for among the probeWindow
// most recent conversations, a walk that bound makes short; when they
// hold too few matches, a term that few hold is read from the trigram
// indexes' bitmap and sorted, and one that many hold a range of hours at
// a time (byHours), each a cost that grows with the matches read, not
// with the organization.
func (s *Service) pageIDs(ctx context.Context, f Filter, offset, limit int, many bool) ([]uuid.UUID, error) {
	if s.Postgres && f.tagsOnly() {
		return s.tagPageIDs(ctx, f.tagNames(), offset, limit)
	}
	q, err := s.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	page := func(q *ent.ContactQuery) ([]uuid.UUID, error) {
		return inboxOrder(q).Offset(offset).Limit(limit).IDs(ctx)
	}
	if !s.Postgres || ent.TxFromContext(ctx) != nil || !indexedFilter(f) {
		return page(q)
	}
	if offset+limit <= probeWindow/4 {
		bound, large, err := s.windowBound(ctx)
		switch {
		case err != nil:
			return nil, err
		case !large:
			return page(q) // the walk is bounded by the organization
		case bound != nil:
			ids, err := page(q.Clone().Where(contact.LastMessageAtGTE(*bound)))
			if err != nil || len(ids) == limit {
				return ids, err
			}
		}
	}
	if many && f.searchOnly() && offset+limit <= hourSearchDepth {
		ids, ok, err := s.newHourSearch(ctx, strings.TrimSpace(f.Search)).byHours(ctx, offset+limit)
		if err != nil || ok {
			return ids[min(offset, len(ids)):], err
		}
	}
	var ids []uuid.UUID
	err = s.fromBitmaps(ctx, func(ctx context.Context) error {
		q, err := s.Query(ctx, f) // in the transaction, under its settings
		if err == nil {
			ids, err = inboxOrder(q).Offset(offset).Limit(limit).IDs(ctx)
		}
		return err
	})
	return ids, err
}

// indexedFilter reports whether f filters on what the trigram or tag
// indexes find.
func indexedFilter(f Filter) bool {
	return hasTrigram(f.Search) || len(f.tagNames()) > 0
}

// windowBound is the last message time of the organization's
// probeWindow-th contact in inbox order: every contact whose last message
// is that recent or more is a prefix of the order (ties included), a
// walk of about probeWindow index entries. large is false when the
// organization has fewer contacts; the bound is nil when that contact has
// no message (the rest of the order is the contacts without one, an
// imported list maybe: no walk is bounded there).
func (s *Service) windowBound(ctx context.Context) (bound *time.Time, large bool, err error) {
	cs, err := inboxOrder(s.db(ctx).Contact.Query()).Offset(probeWindow - 1).Limit(1).
		Select(contact.FieldLastMessageAt).All(ctx)
	if err != nil || len(cs) == 0 {
		return nil, false, err
	}
	return cs[0].LastMessageAt, true, nil
}

// byIDs reads the contacts of ids in that order.
func (s *Service) byIDs(ctx context.Context, ids []uuid.UUID) ([]*ent.Contact, error) {
	rows, err := s.db(ctx).Contact.Query().Where(contact.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	at := make(map[uuid.UUID]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	out := make([]*ent.Contact, len(ids))
	for _, c := range rows {
		out[at[c.ID]] = c
	}
	// A contact deleted between the two reads leaves a hole.
	kept := out[:0]
	for _, c := range out {
		if c != nil {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// CountBound is how far a filtered list's total is counted exactly.
const CountBound = database.CountBound

// Count is the total of the contacts Query selects for f, narrowed by
// narrow when it is not nil. Without a filter it is the organization's
// contact counter (exact, kept by the database in the transaction of
// every insert and delete: nothing is scanned). With one it counts
// matching rows up to bound: past it, the total is bound+1 and capped is
// true ("more than bound"). A scan is thus never longer than the bound,
// or the requested page.
func (s *Service) Count(ctx context.Context, f Filter, narrow func(*ent.ContactQuery) (*ent.ContactQuery, error), bound int) (total int, capped bool, err error) {
	// A filter on tags alone (nothing narrowed: GraphQL's where, when it
	// has none, adds nothing) is counted from the tag order: a bounded
	// count of tags @> read the table from where a scan started, through
	// a campaign's contacts without the tag (0.3 to 1.1 s, bench/scale).
	if s.Postgres && f.tagsOnly() {
		return s.tagCount(ctx, f, bound)
	}
	if f.unfiltered() {
		n, err := s.db(ctx).Organization.Query().
			Where(organization.ID(viewer.FromContext(ctx).OrgID)).
			Select(organization.FieldContactCount).Int(ctx)
		return n, false, apperr.Wrap(err, "organization")
	}
	err = s.countSearch(ctx, f, func(ctx context.Context) error {
		q, err := s.Query(ctx, f)
		if err == nil && narrow != nil {
			q, err = narrow(q)
		}
		if err != nil {
			return err
		}
		total, capped, err = database.CountUpTo(ctx, q, bound)
		return apperr.Wrap(err, "contact")
	})
	return total, capped, err
}

// countSearch runs count, the bounded count of f, so that on PostgreSQL a
// search never walks the organization's contacts: in a transaction of
// its own with sequential and plain index scans off, its count reads
// bitmaps, the trigram indexes'. For a term a few percent of an
// organization hold (a first name) the planner expects the count's
// thousand matches early in the table, or in the organization's index,
// and tests rows in that order, pricing the two case-insensitive
// pattern tests of each at a fraction of their cost: 50,000 rows, 100 ms
// at a million contacts (bench/scale), where the indexes' bitmap gives
// the same thousand in 6 ms warm, 33 ms cold. The cost is for a term held
// by most contacts, whose bitmap is most of the index (tens of
// milliseconds at a million) where the scan would have stopped early.
// A term without a run of three letters or digits has no trigram to look
// up, and a caller's transaction is left as it is: count runs as it is.
func (s *Service) countSearch(ctx context.Context, f Filter, count func(context.Context) error) error {
	if !s.searchesBitmaps(ctx, f) {
		return count(ctx)
	}
	return s.fromBitmaps(ctx, count)
}

// searchesBitmaps reports whether f's count reads the trigram indexes'
// bitmaps (countSearch).
func (s *Service) searchesBitmaps(ctx context.Context, f Filter) bool {
	return s.Postgres && hasTrigram(f.Search) && ent.TxFromContext(ctx) == nil
}

// fromBitmaps runs read in a transaction of its own with sequential and
// plain index scans off, so that its statements read indexes' bitmaps;
// read builds its queries from the ctx it is given (the transaction's).
func (s *Service) fromBitmaps(ctx context.Context, read func(context.Context) error) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		if _, err := db.ExecContext(ctx, searchPlanSQL); err != nil {
			return apperr.Wrap(err, "contact")
		}
		return read(ctx)
	})
}

const searchPlanSQL = "SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off"

// hasTrigram reports whether s holds three letters or digits in a row,
// what pg_trgm looks up in its index for a LIKE pattern.
func hasTrigram(s string) bool {
	run := 0
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			run = 0
			continue
		}
		if run++; run == 3 {
			return true
		}
	}
	return false
}

// Connection is a GraphQL page of contacts: ent's connection, whose total
// Count gave, and whether that total is capped.
type Connection struct {
	*ent.ContactConnection
	TotalCountIsEstimate bool
}

// Paginate runs page (ent's Paginate over q, which must not count: the
// transport hides totalCount from it) and, when withTotal, sets the
// connection's total from Count (bound CountBound) instead of a count of
// every row. narrow adds the transport's own predicates (GraphQL's
// where) to the query before both.
func (s *Service) Paginate(ctx context.Context, f Filter, withTotal bool,
	narrow func(*ent.ContactQuery) (*ent.ContactQuery, error),
	page func(*ent.ContactQuery) (*ent.ContactConnection, error)) (*Connection, error) {
	q, err := s.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	if q, err = narrow(q); err != nil {
		return nil, err
	}
	out := &Connection{}
	if out.ContactConnection, err = page(q.Clone()); err != nil {
		return nil, err
	}
	if withTotal {
		if out.TotalCount, out.TotalCountIsEstimate, err = s.Count(ctx, f, narrow, CountBound); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Get returns a contact. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.Contact, error) {
	c, err := s.db(ctx).Contact.Get(ctx, id)
	return c, apperr.Wrap(err, "contact")
}

// Create creates a contact with a normalised phone number; its name is
// the profile name given. The organization's unique index on the number
// decides duplicates. Errors:
// invalid (phone number, tags, field lengths, a chat_account that is not
// one of the organization's accounts), conflict (the number is already a
// contact).
func (s *Service) Create(ctx context.Context, in CreateInput) (*ent.Contact, error) {
	phone, err := messaging.NormalizePhone(in.PhoneNumber)
	if err != nil {
		return nil, err
	}
	profileName, err := optionalText("profile_name", in.ProfileName)
	if err != nil {
		return nil, err
	}
	chatAccount, err := s.chatAccount(ctx, in.ChatAccount)
	if err != nil {
		return nil, err
	}
	// The name starts as the profile name, as for a contact made by its
	// first inbound message or call: the inbox shows the name.
	cr := s.db(ctx).Contact.Create().SetPhoneNumber(phone).
		SetNillableName(profileName).SetNillableProfileName(profileName).SetNillableChatAccount(chatAccount)
	if err := setTagsAndMetadata(cr.Mutation(), in.Tags, in.Metadata); err != nil {
		return nil, err
	}
	c, err := cr.Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, &apperr.Error{Code: apperr.Conflict, Message: errDuplicatePhone, Err: err}
	}
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	created, err := s.Get(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	if err := s.record(ctx, events.ContactCreated, created); err != nil {
		return nil, err
	}
	return created, nil
}

// Update changes the given fields of a contact. An assigned user must be
// a member of the organization; ClearAssignedAgent unassigns. Errors:
// not_found, invalid (as Create; a user who is not a member; both an
// assignee and ClearAssignedAgent).
func (s *Service) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*ent.Contact, error) {
	if in.ClearAssignedAgent && in.AssignedUserID != nil {
		return nil, apperr.Invalidf("give assigned_user_id or clear_assigned_agent, not both")
	}
	profileName, err := optionalText("profile_name", in.ProfileName)
	if err != nil {
		return nil, err
	}
	chatAccount, err := s.chatAccount(ctx, in.ChatAccount)
	if err != nil {
		return nil, err
	}
	u := s.db(ctx).Contact.UpdateOneID(id).
		SetNillableProfileName(profileName).SetNillableChatAccount(chatAccount)
	if err := setTagsAndMetadata(u.Mutation(), in.Tags, in.Metadata); err != nil {
		return nil, err
	}
	switch {
	case in.ClearAssignedAgent:
		u.ClearAssignedUserID()
	case in.AssignedUserID != nil:
		if err := s.requireMember(ctx, *in.AssignedUserID, "assigned_user_id"); err != nil {
			return nil, err
		}
		u.SetAssignedUserID(*in.AssignedUserID)
	}
	if _, err := u.Save(ctx); err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	c, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return c, s.record(ctx, events.ContactUpdated, c)
}

// record records a contact's domain event in the transaction of ctx: a
// rolled-back change announces nothing.
func (s *Service) record(ctx context.Context, typ events.Type, c *ent.Contact) error {
	err := s.Events.Record(ctx, events.Event{Type: typ, OrgID: c.OrganizationID, Payload: messaging.NewContactEvent(c)})
	return apperr.Wrap(err, "event")
}

// Assign assigns the contact to a member of the organization, or
// unassigns it when userID is nil. Errors: not_found, invalid (the user is
// not a member).
func (s *Service) Assign(ctx context.Context, id uuid.UUID, userID *uuid.UUID) (*ent.Contact, error) {
	u := s.db(ctx).Contact.UpdateOneID(id)
	if userID == nil {
		u.ClearAssignedUserID()
	} else {
		if err := s.requireMember(ctx, *userID, "user_id"); err != nil {
			return nil, err
		}
		u.SetAssignedUserID(*userID)
	}
	c, err := u.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "contact")
	}
	return c, s.record(ctx, events.ContactUpdated, c)
}

// requireMember checks that userID is a member of the viewer's
// organization. field names the input for the message.
func (s *Service) requireMember(ctx context.Context, userID uuid.UUID, field string) error {
	ok, err := s.db(ctx).OrganizationMember.Query().Where(organizationmember.UserID(userID)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "membership")
	}
	if !ok {
		return apperr.Invalidf("%s is not a member of this organization", field)
	}
	return nil
}

// Delete deletes a contact; the database cascades to its messages,
// chatbot sessions, agent transfers and call permissions. Errors:
// not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	return apperr.Wrap(s.db(ctx).Contact.DeleteOneID(id).Exec(ctx), "contact")
}

// MarkRead marks the contact's incoming messages read (those not yet
// read; failed ones keep their status) and clears its unread count.
// Errors: not_found.
func (s *Service) MarkRead(ctx context.Context, id uuid.UUID) error {
	db := s.db(ctx)
	c, err := db.Contact.UpdateOneID(id).SetUnreadCount(0).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, "contact")
	}
	_, err = db.Message.Update().
		Where(message.ContactID(id), message.DirectionEQ(message.DirectionIncoming),
			message.StatusNotIn(message.StatusRead, message.StatusFailed)).
		SetStatus(message.StatusRead).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, "message")
	}
	return s.record(ctx, events.ContactUpdated, c)
}

// SessionData is what the contact info panel shows: the contact's active
// chatbot session (nil when none) with its flow (nil when the flow is
// gone), and the panel layout of the contact's metadata.
type SessionData struct {
	Contact *ent.Contact
	Session *ent.ChatbotSession
	Flow    *ent.ChatbotFlow
	Panel   PanelConfig
}

// SessionData returns the contact's most recent active chatbot session and
// the panel layout of its metadata. Errors: not_found.
func (s *Service) SessionData(ctx context.Context, id uuid.UUID) (*SessionData, error) {
	c, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &SessionData{Contact: c, Panel: BuildPanelConfig(c.Metadata)}
	db := s.db(ctx)
	sess, err := db.ChatbotSession.Query().
		Where(chatbotsession.ContactID(id), chatbotsession.StatusEQ(chatbotsession.StatusActive)).
		Order(chatbotsession.ByLastActivity(sql.OrderDesc()), chatbotsession.ByID()).
		First(ctx)
	switch {
	case ent.IsNotFound(err):
		return out, nil
	case err != nil:
		return nil, apperr.Wrap(err, "chatbot session")
	}
	out.Session = sess
	if sess.CurrentFlowID != nil {
		f, err := db.ChatbotFlow.Query().Where(chatbotflow.ID(*sess.CurrentFlowID)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, apperr.Wrap(err, "chatbot flow")
		}
		out.Flow = f
	}
	return out, nil
}

// normalizeTags trims tags and drops duplicates, keeping the first
// occurrence. Errors: invalid (a tag tags.NormalizeName refuses, more than
// MaxTags tags).
func normalizeTags(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, t := range in {
		t, err := tags.NormalizeName(t)
		if err != nil {
			return nil, err
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) > MaxTags {
		return nil, apperr.Invalidf("a contact may have at most %d tags", MaxTags)
	}
	return out, nil
}

// optionalText trims an optional text field and checks it (at most
// MaxFieldLength characters, no NUL); nil stays nil.
func optionalText(field string, s *string) (*string, error) {
	if s == nil {
		return nil, nil
	}
	t, err := valid.Text(field, *s, MaxFieldLength)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// chatAccount checks a contact's chat_account (the account its
// conversation is held from): empty, or the name of one of the
// organization's accounts. Errors: invalid.
func (s *Service) chatAccount(ctx context.Context, in *string) (*string, error) {
	name, err := optionalText("chat_account", in)
	if err != nil || name == nil || *name == "" {
		return name, err
	}
	exists, err := s.db(ctx).Account.Query().Where(account.Name(*name)).Exist(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "account")
	}
	if !exists {
		return nil, apperr.Invalidf("chat_account: the organization has no account named %q", *name)
	}
	return name, nil
}

// setTagsAndMetadata sets the tags (normalized) and the metadata a create
// or update gives (nil: not given), after checking them.
func setTagsAndMetadata(m *ent.ContactMutation, tags []string, metadata map[string]any) error {
	if tags != nil {
		ts, err := normalizeTags(tags)
		if err != nil {
			return err
		}
		m.SetTags(ts)
	}
	if metadata != nil {
		if err := validMetadata(metadata); err != nil {
			return err
		}
		m.SetMetadata(metadata)
	}
	return nil
}

// validMetadata rejects NUL characters anywhere in metadata (PostgreSQL's
// jsonb cannot store them) and numbers outside the float64 range (they
// could be stored but not read back).
func validMetadata(v any) error {
	switch x := v.(type) {
	case string:
		return valid.NoNUL("metadata", x)
	case json.Number:
		if f, err := strconv.ParseFloat(x.String(), 64); err != nil || math.IsInf(f, 0) {
			return apperr.Invalidf("metadata numbers must be finite 64-bit floating-point values")
		}
	case map[string]any:
		for k, e := range x {
			if err := validMetadata(k); err != nil {
				return err
			}
			if err := validMetadata(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := validMetadata(e); err != nil {
				return err
			}
		}
	}
	return nil
}
