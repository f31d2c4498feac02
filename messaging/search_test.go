package messaging_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/internal/apitest"
)

// searchFixture holds the messages of TestSearchMessages by name.
type searchFixture struct {
	ids      map[string]uuid.UUID
	contacts map[string]*ent.Contact
}

// seedSearch stores, one minute apart in this order (so newest last),
// the organization's messages the search cases look for, and in other a
// message every query would match.
func seedSearch(t *testing.T, env *apitest.Env, other uuid.UUID) *searchFixture {
	t.Helper()
	db, ctx := env.Client(), viewer.SystemContext(context.Background(), env.OrgID)
	f := &searchFixture{ids: map[string]uuid.UUID{}, contacts: map[string]*ent.Contact{}}
	for _, c := range []struct{ name, phone string }{{"Alice", "15550100001"}, {"Boris", "15550100002"}, {"Chen", "15550100003"}} {
		ct, err := db.Contact.Create().SetName(c.name).SetPhoneNumber(c.phone).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f.contacts[c.name] = ct
	}
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	for i, m := range []struct{ name, contact, body string }{
		{"greeting", "Alice", "Hello world, order #1234 is ready"},
		{"reversed", "Alice", "world hello again"},
		{"cyrillic", "Boris", "Привет, мир! Заказ готов"},
		{"arabic", "Boris", "مرحبا بالعالم"},
		{"cjk", "Chen", "東京 に 行きます"},
		{"cjkRun", "Chen", "大阪に行きます"},
		{"markup", "Alice", "<b onclick=x>alert</b> fake <mark>x</mark> \uE000y\uE001 hello"},
		{"wildcards", "Chen", "50% off_now hello"},
	} {
		ms, err := db.Message.Create().SetContactID(f.contacts[m.contact].ID).SetDirection("incoming").
			SetContent(map[string]any{"body": m.body}).SetCreatedAt(t0.Add(time.Duration(i) * time.Minute)).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f.ids[m.name] = ms.ID
	}
	octx := viewer.SystemContext(context.Background(), other)
	oc, err := db.Contact.Create().SetName("Alice").SetPhoneNumber("15550100001").Save(octx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Message.Create().SetContactID(oc.ID).SetDirection("incoming").
		SetContent(map[string]any{"body": "Hello world, order #1234 is ready 東京 мир مرحبا 50% alert"}).Exec(octx); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *searchFixture) names(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		name := "foreign:" + id
		for n, known := range f.ids {
			if known.String() == id {
				name = n
			}
		}
		out = append(out, name)
	}
	return out
}

// restHits searches over REST and returns the hits' message ids.
func restHits(t *testing.T, c *apitest.Client, q string) []string {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/messages/search?q="+url.QueryEscape(q), nil).ExpectStatus(t, http.StatusOK)
	var ids []string
	for i := range res.Len("data.results") {
		ids = append(ids, res.String("data.results."+strconv.Itoa(i)+".message.id"))
	}
	return ids
}

// gqlHits searches over GraphQL and returns the hits' message ids.
func gqlHits(t *testing.T, c *apitest.Client, q string) []string {
	t.Helper()
	res := c.GraphQL(`query($q: String!) { searchMessages(query: $q) { edges { node { message { id } } } } }`, map[string]any{"q": q})
	if res.Get("errors") != nil {
		t.Fatalf("graphql: %s", res.Raw)
	}
	var ids []string
	for i := range res.Len("data.searchMessages.edges") {
		ids = append(ids, res.String("data.searchMessages.edges."+strconv.Itoa(i)+".node.message.id"))
	}
	return ids
}

// TestSearchMessages searches one organization's messages over REST and
// GraphQL on both engines: words, phrases, OR and exclusion, non-Latin
// scripts, wildcard characters taken literally, newest first, nothing of
// another organization, the snippet's markup, paging by cursor, the
// permission of the message history, and every refusal a 400.
func TestSearchMessages(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			env := apitest.New(t, eng.settings...)
			other := env.NewOrg("Other")
			f := seedSearch(t, env, other.OrgID)
			agent := env.NewUser(env.OrgID, access.RoleAgent)
			postgres := eng.name == "postgres"

			cases := []struct {
				name, q string
				want    []string
				onlyPG  bool
			}{
				{name: "Word", q: "hello", want: []string{"wildcards", "markup", "reversed", "greeting"}},
				{name: "CaseInsensitive", q: "HELLO World", want: []string{"reversed", "greeting"}},
				{name: "Phrase", q: `"hello world"`, want: []string{"greeting"}},
				{name: "Or", q: "again or ready", want: []string{"reversed", "greeting"}},
				{name: "Exclude", q: "hello -world", want: []string{"wildcards", "markup"}},
				{name: "Cyrillic", q: "мир", want: []string{"cyrillic"}},
				{name: "CyrillicCase", q: "ПРИВЕТ", want: []string{"cyrillic"}, onlyPG: true},
				{name: "Arabic", q: "مرحبا", want: []string{"arabic"}},
				{name: "CJKWord", q: "東京", want: []string{"cjk"}},
				// 'simple' splits on spaces and punctuation: a run of CJK
				// characters is one word, found whole only.
				{name: "CJKRunWhole", q: "大阪に行きます", want: []string{"cjkRun"}},
				{name: "CJKRunPart", q: "大阪", want: []string{}, onlyPG: true},
				{name: "PercentLiteral", q: "50%", want: []string{"wildcards"}},
				{name: "OnlyWildcards", q: "% _", want: []string{}},
				{name: "NoLexemes", q: "!!! ---", want: []string{}},
				{name: "Unclosed", q: `"order #1234`, want: []string{"greeting"}},
				{name: "NothingElse", q: "zebra", want: []string{}},
			}
			for _, tc := range cases {
				if tc.onlyPG && !postgres {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					for transport, hits := range map[string]func(*testing.T, *apitest.Client, string) []string{"rest": restHits, "graphql": gqlHits} {
						if got := f.names(hits(t, agent, tc.q)); !slices.Equal(got, tc.want) {
							t.Errorf("%s %q: %v, want %v", transport, tc.q, got, tc.want)
						}
					}
				})
			}

			t.Run("OtherOrganizationFindsOnlyItsOwn", func(t *testing.T) {
				for _, q := range []string{"hello", "東京", "мир", "50%"} {
					if got := restHits(t, other, q); len(got) != 1 || slices.Contains(f.names(got), "greeting") {
						t.Errorf("%q: %v", q, f.names(got))
					}
				}
			})

			t.Run("HitShape", func(t *testing.T) {
				res := agent.Do(http.MethodGet, "/api/messages/search?q=alert", nil).ExpectStatus(t, http.StatusOK)
				alice := f.contacts["Alice"]
				want := map[string]any{
					"data.results.0.message.id": f.ids["markup"].String(), "data.results.0.contact.id": alice.ID.String(),
					"data.results.0.contact.name": "Alice", "data.results.0.contact.phone_number": "15550100001",
					"data.has_more": false,
				}
				for path, w := range want {
					if got := res.Get(path); got != w {
						t.Errorf("%s = %v, want %v", path, got, w)
					}
				}
				snippet := res.String("data.results.0.snippet")
				// PostgreSQL's parser leaves what looks like a tag out of
				// the snippet; SQLite's snippet keeps it, escaped.
				if !strings.Contains(snippet, "<mark>alert</mark>") || strings.ContainsAny(snippet, "\uE000\uE001") ||
					strings.Count(snippet, "<mark>") != 1 || strings.Count(snippet, "<") != 2 || strings.Count(snippet, ">") != 2 ||
					(!postgres && !strings.Contains(snippet, "&lt;b onclick=x&gt;")) {
					t.Errorf("snippet %q: the matched word marked, the text escaped, no other markup", snippet)
				}
				g := agent.GraphQL(`{ searchMessages(query: "alert") { edges { cursor node { snippet contact { id name phoneNumber } message { id } } } } }`, nil)
				if g.String("data.searchMessages.edges.0.node.snippet") != snippet ||
					g.String("data.searchMessages.edges.0.node.contact.phoneNumber") != "15550100001" {
					t.Errorf("graphql: %s", g.Raw)
				}
			})

			t.Run("Paging", func(t *testing.T) {
				var restPages, gqlPages [][]string
				cursor := ""
				for {
					res := agent.Do(http.MethodGet, "/api/messages/search?q=hello&limit=3&cursor="+url.QueryEscape(cursor), nil).ExpectStatus(t, http.StatusOK)
					var page []string
					for i := range res.Len("data.results") {
						page = append(page, res.String("data.results."+strconv.Itoa(i)+".message.id"))
					}
					restPages = append(restPages, f.names(page))
					if res.Get("data.has_more") != true {
						break
					}
					cursor = res.String("data.next_cursor")
				}
				var after any
				for {
					res := agent.GraphQL(`query($a: String) { searchMessages(query: "hello", first: 3, after: $a) { edges { node { message { id } } } pageInfo { hasNextPage endCursor } } }`, map[string]any{"a": after})
					var page []string
					for i := range res.Len("data.searchMessages.edges") {
						page = append(page, res.String("data.searchMessages.edges."+strconv.Itoa(i)+".node.message.id"))
					}
					gqlPages = append(gqlPages, f.names(page))
					if res.Get("data.searchMessages.pageInfo.hasNextPage") != true {
						break
					}
					after = res.String("data.searchMessages.pageInfo.endCursor")
				}
				want := [][]string{{"wildcards", "markup", "reversed"}, {"greeting"}}
				if !slices.EqualFunc(restPages, want, slices.Equal) || !slices.EqualFunc(gqlPages, want, slices.Equal) {
					t.Errorf("rest pages %v, graphql pages %v, want %v", restPages, gqlPages, want)
				}
			})

			t.Run("WithoutHistoryPermission", func(t *testing.T) {
				env.Admin.Do(http.MethodPost, "/api/roles", map[string]any{"name": "Contacts only", "permissions": []string{"contacts:read"}}).
					ExpectStatus(t, http.StatusCreated)
				reader := env.NewUser(env.OrgID, "Contacts only")
				reader.Do(http.MethodGet, "/api/contacts/"+f.contacts["Alice"].ID.String()+"/messages", nil).ExpectError(t, http.StatusForbidden)
				reader.Do(http.MethodGet, "/api/messages/search?q=hello", nil).ExpectError(t, http.StatusForbidden)
				if res := reader.GraphQL(`{ searchMessages(query: "hello") { edges { cursor } } }`, nil); res.GraphQLErrorCode() != "forbidden" {
					t.Errorf("graphql: %s", res.Raw)
				}
				env.Anonymous().Do(http.MethodGet, "/api/messages/search?q=hello", nil).ExpectError(t, http.StatusUnauthorized)
			})

			t.Run("Refused", func(t *testing.T) {
				env.SkipOpenAPI = true // the requests break the document on purpose
				defer func() { env.SkipOpenAPI = false }()
				for name, query := range map[string]string{
					"ErrNoQ":            "",
					"ErrBlankQ":         "q=%20%20",
					"ErrLongQ":          "q=" + strings.Repeat("a", 201),
					"ErrNULInQ":         "q=a%00b",
					"ErrBadUTF8":        "q=%ff",
					"ErrLimitZero":      "q=a&limit=0",
					"ErrLimitOver":      "q=a&limit=101",
					"ErrLimitText":      "q=a&limit=ten",
					"ErrCursorGarbage":  "q=a&cursor=not-a-cursor!",
					"ErrCursorTooShort": "q=a&cursor=AAAA",
				} {
					t.Run(name, func(t *testing.T) {
						agent.Do(http.MethodGet, "/api/messages/search?"+query, nil).ExpectError(t, http.StatusBadRequest)
					})
				}
				for name, vars := range map[string]map[string]any{
					"ErrEmptyQuery": {"q": "", "n": 20},
					"ErrLongQuery":  {"q": strings.Repeat("я", 201), "n": 20},
					"ErrFirstZero":  {"q": "a", "n": 0},
					"ErrFirstOver":  {"q": "a", "n": 101},
					"ErrAfter":      {"q": "a", "n": 20, "a": "%%%"},
				} {
					t.Run("GraphQL"+name, func(t *testing.T) {
						res := agent.GraphQL(`query($q: String!, $n: Int, $a: String) { searchMessages(query: $q, first: $n, after: $a) { edges { cursor } } }`, vars)
						if res.GraphQLErrorCode() != "invalid" {
							t.Errorf("graphql: %s", res.Raw)
						}
					})
				}
			})
		})
	}
}
