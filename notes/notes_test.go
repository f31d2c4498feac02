package notes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/events/eventstest"
	"switchboard/internal/testkit"
	"switchboard/notes"
)

// fixture is the service on a migrated database: an organization with a
// contact and three members (the author of notes, a colleague without
// permissions, a moderator who may update contacts), whose events frames
// reads, and another organization with its own contact and member.
type fixture struct {
	s                           *notes.Service
	frames                      *eventstest.Frames
	system                      context.Context
	author, colleague, moderate context.Context
	outsider                    context.Context
	contact, otherContact       uuid.UUID
	foreign                     uuid.UUID // the other organization's contact
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.OpenDB(t).Client
	bus := eventstest.NewBus(t)
	org, ctx := testkit.NewOrg(t, db, "acme")
	otherOrg, other := testkit.NewOrg(t, db, "globex")
	contact := func(ctx context.Context, phone string) uuid.UUID {
		c, err := db.Contact.Create().SetPhoneNumber(phone).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	return &fixture{
		s: &notes.Service{Client: db, Events: bus}, frames: eventstest.Watch(t, bus, org), system: ctx,
		author:    testkit.NewMember(t, db, org, "Ann Author"),
		colleague: testkit.NewMember(t, db, org, "Col League"),
		moderate:  testkit.NewMember(t, db, org, "Mo Derator", "contacts:update"),
		outsider:  testkit.NewMember(t, db, otherOrg, "Out Sider", "contacts:update"),
		contact:   contact(ctx, "15550000001"), otherContact: contact(ctx, "15550000002"),
		foreign: contact(other, "15550000003"),
	}
}

func (f *fixture) mustCreate(t *testing.T, content string) *ent.ContactNote {
	t.Helper()
	n, err := f.s.Create(f.author, f.contact, content)
	if err != nil {
		t.Fatalf("create %q: %v", content, err)
	}
	return n
}

// payload decodes a frame's payload.
func payload[T any](t *testing.T, ev events.Received) T {
	t.Helper()
	var p T
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		t.Fatalf("%s payload %s: %v", ev.Type, ev.Payload, err)
	}
	return p
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name    string
		ctx     context.Context
		contact uuid.UUID
		content string
		code    apperr.Code
		msg     string
	}{
		{"OK", f.author, f.contact, "  called back, wants a quote  ", "", ""},
		{"OKAtTheBound", f.colleague, f.contact, strings.Repeat("é", notes.MaxContentLength), "", ""},
		{"ErrContentRequired", f.author, f.contact, " \n ", apperr.Invalid, "content is required"},
		{"ErrContentTooLong", f.author, f.contact, strings.Repeat("é", notes.MaxContentLength+1), apperr.Invalid, "at most 4096 characters"},
		{"ErrContentNUL", f.author, f.contact, "a\x00b", apperr.Invalid, "must not contain NUL characters"},
		{"ErrNoUser", f.system, f.contact, "by a worker", apperr.Unauthenticated, "a note needs a user"},
		{"ContactNotFound", f.author, uuid.New(), "nobody", apperr.NotFound, ""},
		{"CrossTenantContactNotFound", f.author, f.foreign, "elsewhere", apperr.NotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := f.s.Create(tt.ctx, tt.contact, tt.content)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			got := f.frames.Take(t)
			if err != nil {
				if len(got) != 0 {
					t.Errorf("a refused note announced %v", got)
				}
				return
			}
			v := viewer.FromContext(tt.ctx)
			if n.Content != strings.TrimSpace(tt.content) || n.AuthorID == nil || *n.AuthorID != v.UserID || n.ContactID != tt.contact {
				t.Errorf("created %+v", n)
			}
			if len(got) != 1 || got[0].Type != events.FrameContactNoteCreated {
				t.Fatalf("frames %v, want one %s", got, events.FrameContactNoteCreated)
			}
			p := payload[notes.Payload](t, got[0])
			if p.ID != n.ID || p.ContactID != tt.contact || p.CreatedByName != notes.AuthorName(n) || p.CreatedByName == "" {
				t.Errorf("payload %+v", p)
			}
		})
	}
}

// TestChangeIsTheAuthorsOrAModerators: a note is edited or deleted by its
// author or by a member who may update contacts, through the contact it
// belongs to, in its organization.
func TestChangeIsTheAuthorsOrAModerators(t *testing.T) {
	f := newFixture(t)
	note := f.mustCreate(t, "first")
	f.frames.Take(t)
	tests := []struct {
		name    string
		ctx     context.Context
		contact uuid.UUID
		content string
		code    apperr.Code
		msg     string
	}{
		{"ErrContentRequired", f.author, f.contact, "", apperr.Invalid, "content is required"},
		{"ForbiddenColleague", f.colleague, f.contact, "mine now", apperr.Forbidden,
			"only the note's author or a member who may update contacts can edit it"},
		{"NotFoundThroughAnotherContact", f.author, f.otherContact, "moved", apperr.NotFound, ""},
		{"CrossTenantNotFound", f.outsider, f.contact, "hijacked", apperr.NotFound, ""},
		{"Author", f.author, f.contact, " second ", "", ""},
		{"Moderator", f.moderate, f.contact, "third", "", ""},
	}
	for _, tt := range tests {
		t.Run("Update"+tt.name, func(t *testing.T) {
			n, err := f.s.Update(tt.ctx, tt.contact, note.ID, tt.content)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			got := f.frames.Take(t)
			if err != nil {
				if len(got) != 0 {
					t.Errorf("a refused update announced %v", got)
				}
				return
			}
			if n.Content != strings.TrimSpace(tt.content) || *n.AuthorID != *note.AuthorID {
				t.Errorf("updated %+v", n)
			}
			if len(got) != 1 || got[0].Type != events.FrameContactNoteUpdated ||
				payload[notes.Payload](t, got[0]).Content != n.Content {
				t.Errorf("frames %v, want one %s with the new content", got, events.FrameContactNoteUpdated)
			}
		})
	}
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		contact uuid.UUID
		code    apperr.Code
		msg     string
	}{
		{"ForbiddenColleague", f.colleague, f.contact, apperr.Forbidden, "can delete it"},
		{"NotFoundThroughAnotherContact", f.moderate, f.otherContact, apperr.NotFound, ""},
		{"CrossTenantNotFound", f.outsider, f.contact, apperr.NotFound, ""},
		{"Moderator", f.moderate, f.contact, "", ""},
		{"NotFoundOnceDeleted", f.author, f.contact, apperr.NotFound, ""},
	} {
		t.Run("Delete"+tt.name, func(t *testing.T) {
			testkit.ExpectError(t, f.s.Delete(tt.ctx, tt.contact, note.ID), tt.code, tt.msg)
			got := f.frames.Take(t)
			want := 0
			if tt.code == "" {
				want = 1
			}
			if len(got) != want {
				t.Fatalf("frames %v, want %d", got, want)
			}
			if want == 1 {
				p := payload[notes.DeletedPayload](t, got[0])
				if got[0].Type != events.FrameContactNoteDeleted || p.ID != note.ID || p.ContactID != f.contact {
					t.Errorf("frame %s %+v", got[0].Type, p)
				}
			}
		})
	}
}

// TestList pages a contact's notes from the newest, each page oldest
// first, within the contact and its organization.
func TestList(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.mustCreate(t, fmt.Sprintf("note %d", i))
	}
	if _, err := f.s.Create(f.author, f.otherContact, "another contact's"); err != nil {
		t.Fatal(err)
	}
	all, err := f.s.List(f.author, f.contact, nil, notes.MaxPageSize+1)
	if err != nil || all.Total != 5 || len(all.Notes) != 5 || all.HasMore {
		t.Fatalf("all notes: %+v, %v", all, err)
	}
	if !slices.IsSortedFunc(all.Notes, func(a, b *ent.ContactNote) int { return a.CreatedAt.Compare(b.CreatedAt) }) {
		t.Error("notes are not oldest first")
	}
	ids := func(ns []*ent.ContactNote) []uuid.UUID {
		var out []uuid.UUID
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	x := ids(all.Notes)
	tests := []struct {
		name    string
		ctx     context.Context
		contact uuid.UUID
		before  *uuid.UUID
		limit   int
		want    []uuid.UUID
		hasMore bool
		code    apperr.Code
	}{
		{"Newest", f.colleague, f.contact, nil, 2, x[3:], true, ""},
		{"Before", f.colleague, f.contact, &x[3], 2, x[1:3], true, ""},
		{"Oldest", f.colleague, f.contact, &x[1], 2, x[:1], false, ""},
		{"ErrLimit", f.colleague, f.contact, nil, 0, nil, false, apperr.Invalid},
		{"BeforeOfAnotherContactNotFound", f.colleague, f.otherContact, &x[3], 2, nil, false, apperr.NotFound},
		{"CrossTenantNotFound", f.outsider, f.contact, nil, 2, nil, false, apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := f.s.List(tt.ctx, tt.contact, tt.before, tt.limit)
			testkit.ExpectError(t, err, tt.code, "")
			if err != nil {
				return
			}
			if got := ids(p.Notes); !slices.Equal(got, tt.want) || p.HasMore != tt.hasMore || p.Total != 5 {
				t.Errorf("page %v (more %v, total %d), want %v (more %v, total 5)", got, p.HasMore, p.Total, tt.want, tt.hasMore)
			}
			for _, n := range p.Notes {
				if notes.AuthorName(n) != "Ann Author" {
					t.Errorf("note %s without its author loaded", n.ID)
				}
			}
		})
	}
}
