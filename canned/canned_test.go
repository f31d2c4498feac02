package canned_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/canned"
	"switchboard/ent"
	"switchboard/internal/testkit"
)

func ptr[T any](v T) *T { return &v }

// TestNormalizeButtons: the button rules of a canned response.
func TestNormalizeButtons(t *testing.T) {
	reply := func(id string) canned.Button { return canned.Button{ID: id, Title: "T " + id} }
	for _, tc := range []struct {
		name    string
		in      []canned.Button
		want    []map[string]any
		message string
	}{
		{name: "OKReplyByDefault", in: []canned.Button{{ID: " a ", Title: " Yes "}},
			want: []map[string]any{{"id": "a", "title": "Yes", "type": "reply"}}},
		{name: "OKEveryType", in: []canned.Button{
			{ID: "u", Title: "Site", Type: "url", URL: "https://example.com/x"},
			{ID: "p", Title: "Call us", Type: "phone", PhoneNumber: "+1 555 010 0000"},
			{ID: "v", Title: "Voice", Type: "voice_call", TTLMinutes: ptr(60)},
		}, want: []map[string]any{
			{"id": "u", "title": "Site", "type": "url", "url": "https://example.com/x"},
			{"id": "p", "title": "Call us", "type": "phone", "phone_number": "+1 555 010 0000"},
			{"id": "v", "title": "Voice", "type": "voice_call", "ttl_minutes": 60},
		}},
		{name: "OKNone", in: nil, want: []map[string]any{}},
		{name: "ErrTooMany", in: make([]canned.Button, 11), message: "at most 10 buttons are allowed"},
		{name: "ErrTooManyReplies", in: []canned.Button{reply("a"), reply("b"), reply("c"), reply("d")},
			message: "at most 3 reply buttons are allowed"},
		{name: "ErrIDRequired", in: []canned.Button{{Title: "x"}}, message: "button 1: id is required"},
		{name: "ErrIDRepeated", in: []canned.Button{reply("a"), reply("a")}, message: `button 2: id "a" is used by another button`},
		{name: "ErrTitleRequired", in: []canned.Button{{ID: "a"}}, message: "button 1: title is required"},
		{name: "ErrNUL", in: []canned.Button{{ID: "a", Title: "x\x00"}}, message: "button 1: text must not contain NUL characters"},
		{name: "ErrReplyTitleLong", in: []canned.Button{{ID: "a", Title: strings.Repeat("x", 21)}},
			message: "button 1: a reply button title must be at most 20 characters"},
		{name: "ErrURLMissing", in: []canned.Button{{ID: "a", Title: "x", Type: "url"}}, message: "button 1: url is required for a url button"},
		{name: "ErrURLScheme", in: []canned.Button{{ID: "a", Title: "x", Type: "url", URL: "ftp://example.com"}},
			message: "button 1: url must be an http or https URL"},
		{name: "ErrPhoneDigits", in: []canned.Button{{ID: "a", Title: "x", Type: "phone", PhoneNumber: "12"}},
			message: "button 1: phone_number must have 7 to 15 digits"},
		{name: "ErrTTL", in: []canned.Button{{ID: "a", Title: "x", Type: "voice_call", TTLMinutes: ptr(0)}},
			message: "button 1: ttl_minutes must be between 1 and 43200"},
		{name: "ErrType", in: []canned.Button{{ID: "a", Title: "x", Type: "link"}},
			message: "button 1: type must be one of reply, url, phone, voice_call"},
		{name: "ErrTitleLong", in: []canned.Button{{ID: "a", Title: strings.Repeat("x", 65), Type: "url", URL: "https://e.x"}},
			message: "button 1: title must be at most 64 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canned.NormalizeButtons(tc.in)
			if tc.message != "" {
				testkit.ExpectError(t, err, apperr.Invalid, tc.message)
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
			for i := range got {
				for k, v := range tc.want[i] {
					if got[i][k] != v {
						t.Errorf("button %d %s: %v, want %v", i+1, k, got[i][k], v)
					}
				}
				if len(got[i]) != len(tc.want[i]) {
					t.Errorf("button %d: %v, want %v", i+1, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestRender: the placeholders and the fallbacks of the contact's name.
func TestRender(t *testing.T) {
	const content = "Hi {{contact_name}}, we call {{phone_number}}"
	for _, tc := range []struct {
		name string
		c    ent.Contact
		want string
	}{
		{"Name", ent.Contact{Name: "Dana", ProfileName: "D", PhoneNumber: "15550001"}, "Hi Dana, we call 15550001"},
		{"ProfileName", ent.Contact{ProfileName: "D", PhoneNumber: "15550001"}, "Hi D, we call 15550001"},
		{"PhoneNumber", ent.Contact{PhoneNumber: "15550001"}, "Hi 15550001, we call 15550001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := canned.Render(content, &tc.c); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestShortcutsAndUse: a shortcut is the organization's once,
// case-insensitively; using a response counts the use, fills the
// placeholders and keeps updated_at; an inactive response is not used.
func TestShortcutsAndUse(t *testing.T) {
	db := testkit.OpenDB(t)
	s := &canned.Service{Client: db.Client}
	_, mine := testkit.NewOrg(t, db.Client, "acme")
	_, theirs := testkit.NewOrg(t, db.Client, "other")
	hi, err := s.Create(mine, canned.CreateInput{Name: " Greeting ", Content: "Hi {{contact_name}}", Shortcut: ptr("/hi")})
	if err != nil {
		t.Fatal(err)
	}
	if hi.Name != "Greeting" || !hi.IsActive || hi.Shortcut != "/hi" {
		t.Fatalf("created %+v", hi)
	}
	if _, err := s.Create(theirs, canned.CreateInput{Name: "Theirs", Content: "x", Shortcut: ptr("/hi")}); err != nil {
		t.Fatalf("another organization's shortcut: %v", err)
	}
	contact, err := db.Client.Contact.Create().SetPhoneNumber("15550300001").SetProfileName("Dana").Save(mine)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Rules", func(t *testing.T) {
		for _, tc := range []struct {
			name, message string
			run           func() error
		}{
			{"ErrShortcutTaken", `shortcut "/HI" is already used by another canned response`, func() error {
				_, err := s.Create(mine, canned.CreateInput{Name: "Again", Content: "x", Shortcut: ptr("/HI")})
				return err
			}},
			{"ErrNameRequired", "name is required", func() error {
				_, err := s.Create(mine, canned.CreateInput{Name: " ", Content: "x"})
				return err
			}},
			{"ErrContentTooLong", "content must be at most 4096 characters", func() error {
				_, err := s.Create(mine, canned.CreateInput{Name: "Long", Content: strings.Repeat("x", 4097)})
				return err
			}},
			{"ErrCategoryNUL", "category must not contain NUL characters", func() error {
				_, err := s.Create(mine, canned.CreateInput{Name: "C", Content: "x", Category: ptr("a\x00")})
				return err
			}},
			{"ErrContentEmptied", "content is required", func() error {
				_, err := s.Update(mine, hi.ID, canned.UpdateInput{Content: ptr("  ")})
				return err
			}},
			{"ErrFilterNUL", "search must not contain NUL characters", func() error {
				_, err := s.List(mine, canned.Filter{Search: "\x00"}, 0, 10)
				return err
			}},
		} {
			t.Run(tc.name, func(t *testing.T) { testkit.ExpectError(t, tc.run(), apperr.Invalid, tc.message) })
		}
	})
	t.Run("OwnShortcutKept", func(t *testing.T) {
		if _, err := s.Update(mine, hi.ID, canned.UpdateInput{Shortcut: ptr("/HI"), Buttons: []canned.Button{}}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("UseCountsAndRenders", func(t *testing.T) {
		before, err := s.Get(mine, hi.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Use(mine, hi.ID, &contact.ID)
		if err != nil || got != "Hi Dana" {
			t.Fatalf("Use: %q, %v", got, err)
		}
		after, err := s.Get(mine, hi.ID)
		if err != nil || after.UsageCount != before.UsageCount+1 || !after.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("after use: %+v, %v", after, err)
		}
	})
	t.Run("UseErrors", func(t *testing.T) {
		unknown := uuid.New()
		_, err := s.Use(mine, hi.ID, &unknown)
		testkit.ExpectError(t, err, apperr.NotFound, "contact not found")
		_, err = s.Use(theirs, hi.ID, nil)
		testkit.ExpectError(t, err, apperr.NotFound, "canned response not found")
		if _, err := s.Update(mine, hi.ID, canned.UpdateInput{IsActive: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		_, err = s.Use(mine, hi.ID, nil)
		testkit.ExpectError(t, err, apperr.Invalid, "canned response is not active")
	})
	t.Run("ListFilters", func(t *testing.T) {
		pg, err := s.List(mine, canned.Filter{Search: "/H", ActiveOnly: false}, 0, 10)
		if err != nil || pg.Total != 1 {
			t.Fatalf("search: %+v, %v", pg, err)
		}
		pg, err = s.List(mine, canned.Filter{ActiveOnly: true}, 0, 10)
		if err != nil || pg.Total != 0 {
			t.Fatalf("active only: %+v, %v", pg, err)
		}
	})
}
