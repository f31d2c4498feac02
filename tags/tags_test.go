package tags_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/events"
	"switchboard/events/eventstest"
	"switchboard/internal/testkit"
	"switchboard/tags"
)

// fixture is the service on a migrated database, acting in an
// organization (ctx) whose events frames reads, beside another one
// (other).
type fixture struct {
	s      *tags.Service
	db     *ent.Client
	ctx    context.Context
	other  context.Context
	frames *eventstest.Frames
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testkit.OpenDB(t)
	bus := eventstest.NewBus(t)
	org, ctx := testkit.NewOrg(t, db.Client, "acme")
	_, other := testkit.NewOrg(t, db.Client, "globex")
	return &fixture{s: &tags.Service{Client: db.Client, Events: bus}, db: db.Client, ctx: ctx, other: other,
		frames: eventstest.Watch(t, bus, org)}
}

func (f *fixture) mustCreate(t *testing.T, ctx context.Context, name string) *ent.Tag {
	t.Helper()
	tg, err := f.s.Create(ctx, tags.CreateInput{Name: name})
	if err != nil {
		t.Fatalf("create %q: %v", name, err)
	}
	return tg
}

// contact creates a contact of ctx's organization carrying tags.
func (f *fixture) contact(t *testing.T, ctx context.Context, phone string, tags ...string) uuid.UUID {
	t.Helper()
	c, err := f.db.Contact.Create().SetPhoneNumber(phone).SetTags(tags).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

func (f *fixture) tagsOf(t *testing.T, ctx context.Context, id uuid.UUID) []string {
	t.Helper()
	c, err := f.db.Contact.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return c.Tags
}

func ptr[T any](v T) *T { return &v }

func TestNormalizeName(t *testing.T) {
	tests := []struct {
		name, in, want string
		code           apperr.Code
		msg            string
	}{
		{"Trimmed", "  VIP \t", "VIP", "", ""},
		{"AtTheBound", strings.Repeat("é", tags.MaxNameLength), strings.Repeat("é", tags.MaxNameLength), "", ""},
		{"ErrEmpty", "   ", "", apperr.Invalid, "tags must be non-empty strings"},
		{"ErrTooLong", strings.Repeat("é", tags.MaxNameLength+1), "", apperr.Invalid, "at most 64 characters"},
		{"ErrNUL", "a\x00b", "", apperr.Invalid, "must not contain NUL characters"},
		{"ErrNotUTF8", "a\xffb", "", apperr.Invalid, "valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tags.NormalizeName(tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if got != tt.want {
				t.Errorf("NormalizeName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	f.mustCreate(t, f.ctx, "VIP")
	tests := []struct {
		name      string
		ctx       context.Context
		in        tags.CreateInput
		code      apperr.Code
		msg       string
		wantColor string
	}{
		{"OK", f.ctx, tags.CreateInput{Name: " Lead "}, "", "", tags.DefaultColor},
		{"OKColor", f.ctx, tags.CreateInput{Name: "Hot", Color: ptr("red")}, "", "", "red"},
		{"EmptyColorIsDefault", f.ctx, tags.CreateInput{Name: "Cold", Color: ptr("")}, "", "", tags.DefaultColor},
		{"ErrNameRequired", f.ctx, tags.CreateInput{Name: " "}, apperr.Invalid, "non-empty", ""},
		{"ErrColor", f.ctx, tags.CreateInput{Name: "Pink", Color: ptr("pink")}, apperr.Invalid, "color must be one of blue, red", ""},
		{"ConflictSameName", f.ctx, tags.CreateInput{Name: "VIP"}, apperr.Conflict, "a tag with this name already exists", ""},
		{"ConflictTrimmedName", f.ctx, tags.CreateInput{Name: " VIP "}, apperr.Conflict, "already exists", ""},
		{"SameNameInAnotherOrganization", f.other, tags.CreateInput{Name: "VIP"}, "", "", tags.DefaultColor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := f.s.Create(tt.ctx, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			if tt.code == "" && (tg.Name != strings.TrimSpace(tt.in.Name) || tg.Color != tt.wantColor) {
				t.Errorf("created %q %q, want %q %q", tg.Name, tg.Color, strings.TrimSpace(tt.in.Name), tt.wantColor)
			}
		})
	}
	if got := f.frames.Types(t); len(got) != 0 {
		t.Errorf("creating tags announced %v", got)
	}
}

// TestListIsTenantIsolated: an organization lists, counts, searches and
// reads its own tags only.
func TestListIsTenantIsolated(t *testing.T) {
	f := newFixture(t)
	for _, n := range []string{"beta", "Alpha", "gamma"} {
		f.mustCreate(t, f.ctx, n)
	}
	for _, n := range []string{"alpha-other", "delta"} {
		f.mustCreate(t, f.other, n)
	}
	tests := []struct {
		name          string
		ctx           context.Context
		filter        tags.Filter
		offset, limit int
		want          []string
		total         int
		code          apperr.Code
	}{
		{"All", f.ctx, tags.Filter{}, 0, 10, []string{"Alpha", "beta", "gamma"}, 3, ""},
		{"Page", f.ctx, tags.Filter{}, 1, 1, []string{"beta"}, 3, ""},
		{"SearchIgnoresCase", f.ctx, tags.Filter{Search: " ALPH "}, 0, 10, []string{"Alpha"}, 1, ""},
		{"OtherOrganization", f.other, tags.Filter{}, 0, 10, []string{"alpha-other", "delta"}, 2, ""},
		{"ErrSearchNUL", f.ctx, tags.Filter{Search: "a\x00"}, 0, 10, nil, 0, apperr.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := f.s.List(tt.ctx, tt.filter, tt.offset, tt.limit)
			testkit.ExpectError(t, err, tt.code, "")
			if err != nil {
				return
			}
			var names []string
			for _, tg := range p.Tags {
				names = append(names, tg.Name)
			}
			if !slices.Equal(names, tt.want) || p.Total != tt.total {
				t.Errorf("listed %v of %d, want %v of %d", names, p.Total, tt.want, tt.total)
			}
		})
	}
	t.Run("CrossTenantNotFound", func(t *testing.T) {
		_, err := f.s.Get(f.ctx, "delta")
		testkit.ExpectError(t, err, apperr.NotFound, "")
		_, err = f.s.Update(f.ctx, "delta", tags.UpdateInput{Color: ptr("red")})
		testkit.ExpectError(t, err, apperr.NotFound, "")
		testkit.ExpectError(t, f.s.Delete(f.ctx, "delta"), apperr.NotFound, "")
		if tg, err := f.s.Get(f.other, "delta"); err != nil || tg.Color != tags.DefaultColor {
			t.Errorf("the other organization's tag: %+v, %v", tg, err)
		}
	})
}

// TestUpdate: a rename rewrites every contact carrying the tag, in the
// tag's organization only, and announces each rewritten contact; a color
// change touches no contact.
func TestUpdate(t *testing.T) {
	f := newFixture(t)
	f.mustCreate(t, f.ctx, "VIP")
	f.mustCreate(t, f.ctx, "Taken")
	f.mustCreate(t, f.other, "VIP")
	both := f.contact(t, f.ctx, "15550000001", "new", "VIP")
	only := f.contact(t, f.ctx, "15550000002", "VIP")
	already := f.contact(t, f.ctx, "15550000003", "VIP", "Gold")
	untagged := f.contact(t, f.ctx, "15550000004", "new")
	elsewhere := f.contact(t, f.other, "15550000005", "VIP")

	tests := []struct {
		name   string
		tag    string
		in     tags.UpdateInput
		code   apperr.Code
		msg    string
		frames int // contact:updated frames
	}{
		{"ErrName", "VIP", tags.UpdateInput{Name: ptr("")}, apperr.Invalid, "non-empty", 0},
		{"ErrColor", "VIP", tags.UpdateInput{Color: ptr("pink")}, apperr.Invalid, "color", 0},
		{"ConflictNameTaken", "VIP", tags.UpdateInput{Name: ptr("Taken")}, apperr.Conflict, "already exists", 0},
		{"NotFound", "nope", tags.UpdateInput{Color: ptr("red")}, apperr.NotFound, "", 0},
		{"ColorOnly", "VIP", tags.UpdateInput{Color: ptr("blue")}, "", "", 0},
		{"SameName", "VIP", tags.UpdateInput{Name: ptr(" VIP ")}, "", "", 0},
		{"Rename", "VIP", tags.UpdateInput{Name: ptr("Gold")}, "", "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.s.Update(f.ctx, tt.tag, tt.in)
			testkit.ExpectError(t, err, tt.code, tt.msg)
			got := f.frames.Take(t)
			if len(got) != tt.frames {
				t.Fatalf("%d frames, want %d contact:updated", len(got), tt.frames)
			}
			for _, ev := range got {
				if ev.Type != events.FrameContactUpdated {
					t.Errorf("frame %s, want %s", ev.Type, events.FrameContactUpdated)
				}
			}
		})
	}
	for _, c := range []struct {
		id   uuid.UUID
		ctx  context.Context
		want []string
	}{
		{both, f.ctx, []string{"new", "Gold"}},
		{only, f.ctx, []string{"Gold"}},
		{already, f.ctx, []string{"Gold"}},
		{untagged, f.ctx, []string{"new"}},
		{elsewhere, f.other, []string{"VIP"}},
	} {
		if got := f.tagsOf(t, c.ctx, c.id); !slices.Equal(got, c.want) {
			t.Errorf("contact %s carries %v, want %v", c.id, got, c.want)
		}
	}
	if tg, err := f.s.Get(f.ctx, "Gold"); err != nil || tg.Color != "blue" {
		t.Errorf("renamed tag: %+v, %v", tg, err)
	}
}

// TestDelete: deleting a tag removes it from the contacts that carry it,
// in its organization only, and announces each of them.
func TestDelete(t *testing.T) {
	f := newFixture(t)
	f.mustCreate(t, f.ctx, "VIP")
	f.mustCreate(t, f.other, "VIP")
	tagged := f.contact(t, f.ctx, "15550000001", "new", "VIP")
	elsewhere := f.contact(t, f.other, "15550000002", "VIP")

	testkit.ExpectError(t, f.s.Delete(f.ctx, "nope"), apperr.NotFound, "")
	testkit.ExpectError(t, f.s.Delete(f.ctx, "VIP"), "", "")
	if got := f.frames.Take(t); len(got) != 1 || got[0].Type != events.FrameContactUpdated {
		t.Errorf("frames %v, want one contact:updated", got)
	}
	if got := f.tagsOf(t, f.ctx, tagged); !slices.Equal(got, []string{"new"}) {
		t.Errorf("contact carries %v after the delete", got)
	}
	if got := f.tagsOf(t, f.other, elsewhere); !slices.Equal(got, []string{"VIP"}) {
		t.Errorf("the other organization's contact carries %v", got)
	}
	_, err := f.s.Get(f.ctx, "VIP")
	testkit.ExpectError(t, err, apperr.NotFound, "")
}
