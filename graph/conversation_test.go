package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// conversationOp reads a page of a contact's conversation.
const conversationOp = `query($id: ID!, $first: Int, $after: Cursor, $last: Int, $before: Cursor) {
	contact(id: $id) { messages(first: $first, after: $after, last: $last, before: $before) {
		totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
		edges { cursor node { id content } } } } }`

// conversationPage is one answer of conversationOp.
type conversationPage struct {
	ids, cursors     []string
	hasNext, hasPrev bool
	start, end       string
	total            int
}

func readConversation(t *testing.T, c *apitest.Client, contactID uuid.UUID, args vars) conversationPage {
	t.Helper()
	v := vars{"id": contactID}
	for k, a := range args {
		v[k] = a
	}
	res := mustGraphQL(t, c, conversationOp, v)
	const conn = "data.contact.messages"
	p := conversationPage{
		hasNext: res.Get(conn+".pageInfo.hasNextPage") == true,
		hasPrev: res.Get(conn+".pageInfo.hasPreviousPage") == true,
		start:   res.String(conn + ".pageInfo.startCursor"),
		end:     res.String(conn + ".pageInfo.endCursor"),
		total:   int(res.Number(conn + ".totalCount")),
	}
	for i := range res.Len(conn + ".edges") {
		edge := fmt.Sprintf("%s.edges.%d", conn, i)
		p.ids = append(p.ids, res.String(edge+".node.id"))
		p.cursors = append(p.cursors, res.String(edge+".cursor"))
	}
	if n := len(p.cursors); n > 0 && (p.start != p.cursors[0] || p.end != p.cursors[n-1]) {
		t.Fatalf("pageInfo's cursors are not the edges' first and last: %s", res.Raw)
	}
	return p
}

// seedConversation stores n messages of contactID, three to a timestamp
// with random (not time-ordered) ids, so that the id breaks each tie, and
// returns their ids in the conversation's order, (created_at, id).
func seedConversation(t *testing.T, client *ent.Client, ctx context.Context, contactID uuid.UUID, n int) []string {
	t.Helper()
	base := time.Now().Add(-time.Hour).Truncate(time.Second).UTC()
	builders := make([]*ent.MessageCreate, n)
	for i := range builders {
		builders[i] = client.Message.Create().SetID(uuid.New()).SetContactID(contactID).
			SetDirection(message.DirectionIncoming).SetContent(map[string]any{"body": fmt.Sprint(i)}).
			SetCreatedAt(base.Add(time.Duration(i/3) * time.Second))
	}
	ms, err := client.Message.CreateBulk(builders...).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ms, func(a, b *ent.Message) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	ids := make([]string, n)
	for i, m := range ms {
		ids[i] = m.ID.String()
	}
	return ids
}

// TestGraphQLConversation pages Contact.messages, a Relay connection
// oldest to newest by (created_at, id), over 25 messages whose timestamps
// tie in threes: backward from the newest (a chat screen), forward from
// the oldest, between two cursors; and its refusals.
func TestGraphQLConversation(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	contact, err := env.Client().Contact.Create().SetPhoneNumber("15550301001").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := seedConversation(t, env.Client(), ctx, contact.ID, 25)

	t.Run("NewestFirstPage", func(t *testing.T) {
		p := readConversation(t, admin, contact.ID, vars{"last": 10})
		if !slices.Equal(p.ids, want[15:]) || !p.hasPrev || p.hasNext || p.total != 25 {
			t.Fatalf("last 10: %+v, want %v", p, want[15:])
		}
	})
	t.Run("BackwardToTheOldest", func(t *testing.T) {
		var got []string
		var sizes []int
		args := vars{"last": 10}
		for {
			p := readConversation(t, admin, contact.ID, args)
			got = append(p.ids, got...)
			sizes = append(sizes, len(p.ids))
			if p.total != 25 || (len(sizes) > 1 && !p.hasNext) {
				t.Fatalf("page %d: %+v", len(sizes), p)
			}
			if !p.hasPrev {
				break
			}
			if len(sizes) > 3 {
				t.Fatalf("no end after %v", sizes)
			}
			args = vars{"last": 10, "before": p.start}
		}
		if !slices.Equal(got, want) || !slices.Equal(sizes, []int{10, 10, 5}) {
			t.Fatalf("pages %v: %v, want %v", sizes, got, want)
		}
	})
	t.Run("ForwardToTheNewest", func(t *testing.T) {
		var got []string
		var sizes []int
		args := vars{"first": 10}
		for {
			p := readConversation(t, admin, contact.ID, args)
			got = append(got, p.ids...)
			sizes = append(sizes, len(p.ids))
			if p.total != 25 || p.hasPrev != (len(sizes) > 1) {
				t.Fatalf("page %d: %+v", len(sizes), p)
			}
			if !p.hasNext {
				break
			}
			if len(sizes) > 3 {
				t.Fatalf("no end after %v", sizes)
			}
			args = vars{"first": 10, "after": p.end}
		}
		if !slices.Equal(got, want) || !slices.Equal(sizes, []int{10, 10, 5}) {
			t.Fatalf("pages %v: %v, want %v", sizes, got, want)
		}
	})
	t.Run("CursorRoundTrip", func(t *testing.T) {
		// want[7] sits inside a tie (6, 7 and 8 share a timestamp): the
		// pages beside its cursor split the tie by id.
		all := readConversation(t, admin, contact.ID, vars{"first": 25})
		cursor := all.cursors[7]
		if p := readConversation(t, admin, contact.ID, vars{"first": 3, "after": cursor}); !slices.Equal(p.ids, want[8:11]) || !p.hasNext || !p.hasPrev {
			t.Fatalf("3 after the 8th: %+v, want %v", p, want[8:11])
		}
		if p := readConversation(t, admin, contact.ID, vars{"last": 2, "before": cursor}); !slices.Equal(p.ids, want[5:7]) || !p.hasNext || !p.hasPrev {
			t.Fatalf("2 before the 8th: %+v, want %v", p, want[5:7])
		}
		between := readConversation(t, admin, contact.ID, vars{"first": 100, "after": all.cursors[3], "before": all.cursors[9]})
		if !slices.Equal(between.ids, want[4:9]) || !between.hasNext || !between.hasPrev {
			t.Fatalf("between the 4th and the 10th: %+v, want %v", between, want[4:9])
		}
		again := readConversation(t, admin, contact.ID, vars{"first": 1, "after": all.cursors[6]})
		if again.start != all.cursors[7] {
			t.Fatalf("a message's cursor is not stable: %q, then %q", all.cursors[7], again.start)
		}
	})
	t.Run("DefaultAndEmptyPages", func(t *testing.T) {
		if p := readConversation(t, admin, contact.ID, nil); !slices.Equal(p.ids, want[:20]) || !p.hasNext || p.hasPrev {
			t.Fatalf("no first or last (the first 20): %+v", p)
		}
		if p := readConversation(t, admin, contact.ID, vars{"last": 0}); len(p.ids) != 0 || !p.hasPrev || p.start != "" || p.total != 25 {
			t.Fatalf("last 0: %+v", p)
		}
		other, err := env.Client().Contact.Create().SetPhoneNumber("15550301002").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p := readConversation(t, admin, other.ID, vars{"last": 20}); len(p.ids) != 0 || p.hasPrev || p.hasNext || p.total != 0 {
			t.Fatalf("an empty conversation: %+v", p)
		}
	})

	t.Run("ComplexityCountsThePage", func(t *testing.T) {
		// A contact's page costs its first or last times its selection,
		// as every connection does: 100 contacts with a page of 1 fit,
		// with a page of 100 they do not.
		inbox := func(n int) string {
			return fmt.Sprintf(`{ contacts(first: 100) { edges { node { id messages(last: %d) { edges { node { id } } } } } } }`, n)
		}
		if r := admin.GraphQL(inbox(1), nil); r.Status != http.StatusOK || r.Get("errors") != nil {
			t.Fatalf("100 contacts with their newest message: %d %.300s", r.Status, r.Raw)
		}
		r := admin.GraphQL(inbox(100), nil)
		if r.Status != http.StatusBadRequest || r.GraphQLErrorCode() != "COMPLEXITY_LIMIT_EXCEEDED" {
			t.Fatalf("100 contacts with 100 messages each: %d %.300s", r.Status, r.Raw)
		}
	})

	foreign := mustGraphQL(t, env.NewOrg("Other"), `mutation { createContact(input: {phoneNumber: "15550301003"}) { id } }`, nil).
		String("data.createContact.id")
	contactsCursor := mustGraphQL(t, admin, `{ contacts(first: 1) { pageInfo { endCursor } } }`, nil).
		String("data.contacts.pageInfo.endCursor")
	page := func(args string) string {
		return `query($id: ID!) { contact(id: $id) { messages(` + args + `) { totalCount edges { node { id } } } } }`
	}
	id := vars{"id": contact.ID}
	runErrorCases(t, []errorCase{
		{"ErrMalformedCursor", admin, page(`last: 5, before: "zzz"`), id, "invalid"},
		{"ErrCursorOfAnotherList", admin, page(`first: 5, after: "` + contactsCursor + `"`), id, "invalid"},
		{"ErrFirstAndLast", admin, page(`first: 5, last: 5`), id, "invalid"},
		{"ErrNegativeFirst", admin, page(`first: -1`), id, "invalid"},
		{"ErrNegativeLast", admin, page(`last: -1`), id, "invalid"},
		{"ErrLastTooLarge", admin, page(`last: 101`), id, "invalid"},
		{"CrossTenantNotFound", admin, page(`last: 5`), vars{"id": foreign}, "not_found"},
		{"WithoutMessagesReadForbidden", newReader(t, env, "contacts:read"), page(`last: 5`), id, "forbidden"},
	})
}

// TestGraphQLConversationsOfAList pages the conversations of a list of
// contacts (an inbox), read together: each contact gets its own messages,
// oldest to newest, its own look-ahead and its own total, for two pages
// (aliases) at once.
func TestGraphQLConversationsOfAList(t *testing.T) {
	env := apitest.New(t)
	ctx := viewer.SystemContext(context.Background(), env.OrgID)
	want := map[string][]string{}
	for i, n := range []int{0, 2, 5, 7} {
		c, err := env.Client().Contact.Create().SetPhoneNumber(fmt.Sprintf("1555030400%d", i)).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want[c.ID.String()] = seedConversation(t, env.Client(), ctx, c.ID, n)
	}
	const page = `totalCount pageInfo { hasPreviousPage hasNextPage } edges { cursor node { id } }`
	res := mustGraphQL(t, env.Admin, `{ contacts(first: 10) { edges { node { id
		newest: messages(last: 3) { `+page+` } oldest: messages(first: 4) { `+page+` } } } } }`, nil)
	seen := 0
	for i := range res.Len("data.contacts.edges") {
		node := fmt.Sprintf("data.contacts.edges.%d.node", i)
		id := res.String(node + ".id")
		w, ok := want[id]
		if !ok {
			continue
		}
		seen++
		for _, tc := range []struct {
			alias            string
			ids              []string
			hasPrev, hasNext bool
		}{
			{"newest", w[max(0, len(w)-3):], len(w) > 3, false},
			{"oldest", w[:min(len(w), 4)], false, len(w) > 4},
		} {
			conn := node + "." + tc.alias
			got := []string{}
			for j := range res.Len(conn + ".edges") {
				got = append(got, res.String(fmt.Sprintf("%s.edges.%d.node.id", conn, j)))
			}
			hasPrev := res.Get(conn+".pageInfo.hasPreviousPage") == true
			hasNext := res.Get(conn+".pageInfo.hasNextPage") == true
			total := int(res.Number(conn + ".totalCount"))
			if !slices.Equal(got, tc.ids) || hasPrev != tc.hasPrev || hasNext != tc.hasNext || total != len(w) {
				t.Errorf("%s of a contact with %d messages: %v prev %v next %v total %d, want %v prev %v next %v",
					tc.alias, len(w), got, hasPrev, hasNext, total, tc.ids, tc.hasPrev, tc.hasNext)
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of the %d contacts listed: %s", seen, len(want), res.Raw)
	}
}
