package contacts_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/contacts"
	"switchboard/ent"
	"switchboard/ent/chatbotsession"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/events/eventstest"
	"switchboard/internal/testkit"
)

// fixture is two organizations: ctx acts in the first (an account named
// "acme line", a member), other in the second (its own account and
// member). frames reads what the first organization's /ws clients receive.
type fixture struct {
	s      *contacts.Service
	db     *ent.Client
	sql    *sql.DB
	frames *eventstest.Frames
	ctx    context.Context
	other  context.Context
	member uuid.UUID
	// outsider is a member of the second organization only.
	outsider uuid.UUID
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	opened := testkit.OpenDB(t)
	db := opened.Client
	bus := eventstest.NewBus(t)
	f := &fixture{db: db, sql: opened.SQL, s: &contacts.Service{Client: db, Events: bus, Postgres: opened.Postgres()}}
	org := func(name, phoneID string) (uuid.UUID, context.Context, uuid.UUID) {
		id, ctx := testkit.NewOrg(t, db, name)
		if err := db.Account.Create().SetName(name + " line").SetPhoneID(phoneID).SetBusinessID("1").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		member := viewer.FromContext(testkit.NewMember(t, db, id, name+" agent"))
		return id, ctx, member.UserID
	}
	var orgID uuid.UUID
	orgID, f.ctx, f.member = org("acme", "1001")
	_, f.other, f.outsider = org("globex", "1002")
	f.frames = eventstest.Watch(t, bus, orgID)
	return f
}

// mustCreate creates a contact of the first organization.
func (f *fixture) mustCreate(t *testing.T, in contacts.CreateInput) *ent.Contact {
	t.Helper()
	c, err := f.s.Create(f.ctx, in)
	if err != nil {
		t.Fatalf("create %+v: %v", in, err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func TestCreate(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		in   contacts.CreateInput
		code apperr.Code
		msg  string
	}{
		{name: "ErrPhoneRequired", in: contacts.CreateInput{PhoneNumber: " "}, code: apperr.Invalid, msg: "phone_number is required"},
		{name: "ErrPhoneShort", in: contacts.CreateInput{PhoneNumber: "12345"}, code: apperr.Invalid, msg: "phone_number must have 7 to 15 digits"},
		{name: "ErrProfileNameTooLong", in: contacts.CreateInput{PhoneNumber: "15550000001", ProfileName: ptr(strings.Repeat("é", 256))},
			code: apperr.Invalid, msg: "profile_name must be at most 255 characters"},
		{name: "ErrProfileNameNUL", in: contacts.CreateInput{PhoneNumber: "15550000001", ProfileName: ptr("a\x00b")},
			code: apperr.Invalid, msg: "profile_name must not contain NUL characters"},
		{name: "ErrChatAccountOfAnotherOrganization", in: contacts.CreateInput{PhoneNumber: "15550000001", ChatAccount: ptr("globex line")},
			code: apperr.Invalid, msg: `chat_account: the organization has no account named "globex line"`},
		{name: "ErrTagEmpty", in: contacts.CreateInput{PhoneNumber: "15550000001", Tags: []string{"vip", " "}},
			code: apperr.Invalid, msg: "tags must be non-empty strings"},
		{name: "ErrTooManyTags", in: contacts.CreateInput{PhoneNumber: "15550000001", Tags: manyTags(contacts.MaxTags + 1)},
			code: apperr.Invalid, msg: "a contact may have at most 50 tags"},
		{name: "ErrMetadataNUL", in: contacts.CreateInput{PhoneNumber: "15550000001", Metadata: map[string]any{"a": []any{"x\x00"}}},
			code: apperr.Invalid, msg: "metadata must not contain NUL characters"},
		{name: "ErrMetadataKeyNUL", in: contacts.CreateInput{PhoneNumber: "15550000001", Metadata: map[string]any{"a\x00": 1}},
			code: apperr.Invalid, msg: "metadata must not contain NUL characters"},
		{name: "ErrMetadataNumber", in: contacts.CreateInput{PhoneNumber: "15550000001", Metadata: map[string]any{"n": json.Number("1e999")}},
			code: apperr.Invalid, msg: "metadata numbers must be finite 64-bit floating-point values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.s.Create(f.ctx, tc.in)
			testkit.ExpectError(t, err, tc.code, tc.msg)
			if got := f.frames.Types(t); len(got) != 0 {
				t.Errorf("a refused create recorded %v", got)
			}
		})
	}

	t.Run("OK", func(t *testing.T) {
		c := f.mustCreate(t, contacts.CreateInput{
			PhoneNumber: "+1 (555) 000-0002", ProfileName: ptr("  Grace  "), ChatAccount: ptr(" acme line "),
			Tags: []string{" vip ", "new", "vip"}, Metadata: map[string]any{"plan": "gold"},
		})
		if c.PhoneNumber != "15550000002" || c.ProfileName != "Grace" || c.Name != "Grace" || c.ChatAccount != "acme line" ||
			strings.Join(c.Tags, ",") != "vip,new" || c.Metadata["plan"] != "gold" {
			t.Errorf("created %+v", c)
		}
		if got := f.frames.Types(t); len(got) != 1 || got[0] != events.FrameContactNew {
			t.Errorf("events %v, want one %s", got, events.FrameContactNew)
		}
	})
	t.Run("NameDefaultsToProfileName", func(t *testing.T) {
		for _, tc := range []struct {
			phone       string
			profileName *string
			want        string
		}{
			{"15550000010", ptr("Ada"), "Ada"},
			{"15550000011", ptr(""), ""},
			{"15550000012", nil, ""},
		} {
			c := f.mustCreate(t, contacts.CreateInput{PhoneNumber: tc.phone, ProfileName: tc.profileName})
			if c.Name != tc.want || c.ProfileName != tc.want {
				t.Errorf("profile name %v: name %q, profile name %q, want %q", tc.profileName, c.Name, c.ProfileName, tc.want)
			}
		}
	})
	t.Run("ConflictSameNumber", func(t *testing.T) {
		_, err := f.s.Create(f.ctx, contacts.CreateInput{PhoneNumber: "0015550000002"})
		testkit.ExpectError(t, err, apperr.Conflict, "a contact with this phone number already exists")
	})
	t.Run("OKSameNumberInAnotherOrganization", func(t *testing.T) {
		if _, err := f.s.Create(f.other, contacts.CreateInput{PhoneNumber: "15550000002"}); err != nil {
			t.Fatal(err)
		}
	})
}

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

func TestUpdateAndAssign(t *testing.T) {
	f := newFixture(t)
	c := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "15550000010", Tags: []string{"a"}})
	f.frames.Types(t)
	for _, tc := range []struct {
		name string
		in   contacts.UpdateInput
		// check runs on the updated contact; nil: the update is refused
		// with code and msg.
		check func(*ent.Contact) bool
		code  apperr.Code
		msg   string
	}{
		{name: "OKAssignMember", in: contacts.UpdateInput{AssignedUserID: &f.member},
			check: func(c *ent.Contact) bool { return c.AssignedUserID != nil && *c.AssignedUserID == f.member }},
		{name: "OKKeepsAbsentFields", in: contacts.UpdateInput{ProfileName: ptr(" Ada ")},
			check: func(c *ent.Contact) bool {
				return c.ProfileName == "Ada" && c.AssignedUserID != nil && len(c.Tags) == 1
			}},
		{name: "OKReplaceTags", in: contacts.UpdateInput{Tags: []string{}},
			check: func(c *ent.Contact) bool { return len(c.Tags) == 0 }},
		{name: "OKClearAssignee", in: contacts.UpdateInput{ClearAssignedAgent: true},
			check: func(c *ent.Contact) bool { return c.AssignedUserID == nil }},
		{name: "ErrAssignNonMember", in: contacts.UpdateInput{AssignedUserID: &f.outsider},
			code: apperr.Invalid, msg: "assigned_user_id is not a member of this organization"},
		{name: "ErrAssignAndClear", in: contacts.UpdateInput{AssignedUserID: &f.member, ClearAssignedAgent: true},
			code: apperr.Invalid, msg: "give assigned_user_id or clear_assigned_agent, not both"},
		{name: "ErrUnknownChatAccount", in: contacts.UpdateInput{ChatAccount: ptr("nope")},
			code: apperr.Invalid, msg: `chat_account: the organization has no account named "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.s.Update(f.ctx, c.ID, tc.in)
			if tc.check == nil {
				testkit.ExpectError(t, err, tc.code, tc.msg)
				if evs := f.frames.Types(t); len(evs) != 0 {
					t.Errorf("a refused update recorded %v", evs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(got) {
				t.Errorf("updated %+v", got)
			}
			if evs := f.frames.Types(t); len(evs) != 1 || evs[0] != events.FrameContactUpdated {
				t.Errorf("events %v, want one %s", evs, events.FrameContactUpdated)
			}
		})
	}

	t.Run("Assign", func(t *testing.T) {
		got, err := f.s.Assign(f.ctx, c.ID, &f.member)
		if err != nil || got.AssignedUserID == nil || *got.AssignedUserID != f.member {
			t.Fatalf("assign: %+v %v", got, err)
		}
		if got, err = f.s.Assign(f.ctx, c.ID, nil); err != nil || got.AssignedUserID != nil {
			t.Fatalf("unassign: %+v %v", got, err)
		}
		_, err = f.s.Assign(f.ctx, c.ID, &f.outsider)
		testkit.ExpectError(t, err, apperr.Invalid, "user_id is not a member of this organization")
		if evs := f.frames.Types(t); len(evs) != 2 {
			t.Errorf("events %v, want two contact:updated", evs)
		}
	})

	t.Run("CrossTenantNotFound", func(t *testing.T) {
		_, err := f.s.Get(f.other, c.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "")
		_, err = f.s.Update(f.other, c.ID, contacts.UpdateInput{ProfileName: ptr("x")})
		testkit.ExpectError(t, err, apperr.NotFound, "")
		_, err = f.s.Assign(f.other, c.ID, &f.outsider)
		testkit.ExpectError(t, err, apperr.NotFound, "")
		testkit.ExpectError(t, f.s.MarkRead(f.other, c.ID), apperr.NotFound, "")
		testkit.ExpectError(t, f.s.Delete(f.other, c.ID), apperr.NotFound, "")
		if _, err := f.s.Get(f.ctx, c.ID); err != nil {
			t.Fatalf("the contact is gone from its own organization: %v", err)
		}
	})
}

func TestList(t *testing.T) {
	f := newFixture(t)
	ada := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "15550000021", ProfileName: ptr("Ada Lovelace"), Tags: []string{"vip"}})
	bob := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "15550000022", ProfileName: ptr("Bob"), Tags: []string{"new"}})
	cat := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "4930000023", ProfileName: ptr("Cat")})
	// Bob's conversation is the latest, then Ada's; Cat has none (last,
	// however new).
	now := time.Now()
	if err := f.db.Contact.UpdateOneID(ada.ID).SetLastMessageAt(now.Add(-time.Hour)).Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.db.Contact.UpdateOneID(bob.ID).SetLastMessageAt(now).Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		f      contacts.Filter
		offset int
		want   []uuid.UUID
		total  int
	}{
		{name: "All", want: []uuid.UUID{bob.ID, ada.ID, cat.ID}, total: 3},
		{name: "SearchNameFold", f: contacts.Filter{Search: "  lovelace "}, want: []uuid.UUID{ada.ID}, total: 1},
		{name: "SearchDigits", f: contacts.Filter{Search: "+49 300"}, want: []uuid.UUID{cat.ID}, total: 1},
		{name: "SearchDigitsWritten", f: contacts.Filter{Search: "(555) 000-00"}, want: []uuid.UUID{bob.ID, ada.ID}, total: 2},
		// Digits inside a name's search are not a phone number's.
		{name: "SearchNameWithDigits", f: contacts.Filter{Search: "Cat 300"}, want: nil, total: 0},
		{name: "AnyTag", f: contacts.Filter{Tags: []string{"vip", " new "}}, want: []uuid.UUID{bob.ID, ada.ID}, total: 2},
		{name: "PastTheLastPage", offset: 10, want: nil, total: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := f.s.List(f.ctx, tc.f, tc.offset, 20)
			if err != nil {
				t.Fatal(err)
			}
			var got []uuid.UUID
			for _, c := range page.Contacts {
				got = append(got, c.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || page.Total != tc.total {
				t.Errorf("got %v (total %d), want %v (total %d)", got, page.Total, tc.want, tc.total)
			}
		})
	}
	t.Run("ErrNULInFilter", func(t *testing.T) {
		_, err := f.s.List(f.ctx, contacts.Filter{Search: "a\x00"}, 0, 20)
		testkit.ExpectError(t, err, apperr.Invalid, "search must not contain NUL characters")
		_, err = f.s.Query(f.ctx, contacts.Filter{Tags: []string{"\x00"}})
		testkit.ExpectError(t, err, apperr.Invalid, "tags must not contain NUL characters")
	})
	t.Run("OtherOrganizationSeesNone", func(t *testing.T) {
		page, err := f.s.List(f.other, contacts.Filter{}, 0, 20)
		if err != nil || len(page.Contacts) != 0 || page.Total != 0 {
			t.Fatalf("page %+v, %v", page, err)
		}
	})
}

// TestCounts checks the totals that do not scan: the unfiltered total is
// the organization's counter, kept through creates, ingest-like bulk
// inserts and deletes; a filtered total is exact up to its bound and
// bound+1 (capped) past it.
func TestCounts(t *testing.T) {
	f := newFixture(t)
	var ids []uuid.UUID
	for i := range 4 {
		c := f.mustCreate(t, contacts.CreateInput{PhoneNumber: fmt.Sprintf("1555000010%d", i), ProfileName: ptr(fmt.Sprintf("Ann %d", i))})
		ids = append(ids, c.ID)
	}
	if _, err := f.db.Contact.CreateBulk(
		f.db.Contact.Create().SetPhoneNumber("15550000200"),
		f.db.Contact.Create().SetPhoneNumber("15550000201"),
	).Save(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Delete(f.ctx, ids[3]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Create(f.other, contacts.CreateInput{PhoneNumber: "15550000300"}); err != nil {
		t.Fatal(err)
	}
	total := func(ctx context.Context, flt contacts.Filter, bound int) (int, bool) {
		t.Helper()
		n, capped, err := f.s.Count(ctx, flt, nil, bound)
		if err != nil {
			t.Fatal(err)
		}
		return n, capped
	}
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		f      contacts.Filter
		bound  int
		total  int
		capped bool
	}{
		{name: "CounterAfterCreatesBulkAndDelete", ctx: f.ctx, bound: 1, total: 5},
		{name: "CounterOfTheOtherOrganization", ctx: f.other, bound: 1, total: 1},
		{name: "FilteredWithinBound", ctx: f.ctx, f: contacts.Filter{Search: "ann"}, bound: 3, total: 3},
		{name: "FilteredPastBound", ctx: f.ctx, f: contacts.Filter{Search: "ann"}, bound: 2, total: 3, capped: true},
		{name: "NarrowedIsCounted", ctx: f.ctx, f: contacts.Filter{Narrowed: true}, bound: 10, total: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n, capped := total(tc.ctx, tc.f, tc.bound); n != tc.total || capped != tc.capped {
				t.Errorf("total %d capped %v, want %d %v", n, capped, tc.total, tc.capped)
			}
		})
	}
	t.Run("ListReportsTheCounter", func(t *testing.T) {
		page, err := f.s.List(f.ctx, contacts.Filter{}, 0, 2)
		if err != nil || len(page.Contacts) != 2 || page.Total != 5 || page.TotalCapped {
			t.Fatalf("page %+v, %v", page, err)
		}
	})
	t.Run("MessageCounter", func(t *testing.T) {
		for range 3 {
			if err := f.db.Message.Create().SetContactID(ids[0]).SetDirection(message.DirectionIncoming).
				SetMessageType("text").Exec(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
		c, err := f.s.Get(f.ctx, ids[0])
		if err != nil || c.MessageCount != 3 {
			t.Fatalf("message_count %d, %v", c.MessageCount, err)
		}
	})
}

func TestMarkRead(t *testing.T) {
	f := newFixture(t)
	c := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "15550000031"})
	if err := f.db.Contact.UpdateOneID(c.ID).SetUnreadCount(3).Exec(f.ctx); err != nil {
		t.Fatal(err)
	}
	seed := map[string]struct {
		dir        message.Direction
		from, want message.Status
	}{
		"delivered": {message.DirectionIncoming, message.StatusDelivered, message.StatusRead},
		"received":  {message.DirectionIncoming, message.StatusSent, message.StatusRead},
		"failed":    {message.DirectionIncoming, message.StatusFailed, message.StatusFailed},
		"outgoing":  {message.DirectionOutgoing, message.StatusDelivered, message.StatusDelivered},
	}
	ids := map[string]uuid.UUID{}
	for name, m := range seed {
		msg, err := f.db.Message.Create().SetContactID(c.ID).SetDirection(m.dir).SetStatus(m.from).Save(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = msg.ID
	}
	f.frames.Types(t)
	if err := f.s.MarkRead(f.ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	for name, m := range seed {
		t.Run(name, func(t *testing.T) {
			got, err := f.db.Message.Get(f.ctx, ids[name])
			if err != nil || got.Status != m.want {
				t.Errorf("status %v (%v), want %s", got.Status, err, m.want)
			}
		})
	}
	if got, _ := f.s.Get(f.ctx, c.ID); got.UnreadCount != 0 {
		t.Errorf("unread_count %d", got.UnreadCount)
	}
	if evs := f.frames.Types(t); len(evs) != 1 || evs[0] != events.FrameContactUpdated {
		t.Errorf("events %v", evs)
	}
}

func TestSessionData(t *testing.T) {
	f := newFixture(t)
	c := f.mustCreate(t, contacts.CreateInput{PhoneNumber: "15550000041", Metadata: map[string]any{"plan": "gold"}})
	t.Run("NoSession", func(t *testing.T) {
		d, err := f.s.SessionData(f.ctx, c.ID)
		if err != nil || d.Session != nil || d.Flow != nil || d.Contact.ID != c.ID ||
			len(d.Panel.Sections) != 1 || d.Panel.Sections[0].Fields[0].Label != "Plan" {
			t.Fatalf("%+v, %v", d, err)
		}
	})
	t.Run("ActiveSessionWithItsFlow", func(t *testing.T) {
		flow, err := f.db.ChatbotFlow.Create().SetName("Orders").Save(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.db.ChatbotSession.Create().SetContactID(c.ID).SetStatus(chatbotsession.StatusCompleted).Exec(f.ctx); err != nil {
			t.Fatal(err)
		}
		s, err := f.db.ChatbotSession.Create().SetContactID(c.ID).SetCurrentFlowID(flow.ID).Save(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.s.SessionData(f.ctx, c.ID)
		if err != nil || d.Session == nil || d.Session.ID != s.ID || d.Flow == nil || d.Flow.Name != "Orders" {
			t.Fatalf("%+v, %v", d, err)
		}
	})
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		_, err := f.s.SessionData(f.other, c.ID)
		testkit.ExpectError(t, err, apperr.NotFound, "")
	})
}
