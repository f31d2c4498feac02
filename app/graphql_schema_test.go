package app_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"switchboard/internal/apitest"
)

// TestGraphQLDescriptionsDedented: the descriptions introspection serves
// carry no source indentation: the """ blocks of the *.graphql files are
// read as the GraphQL spec's BlockStringValue says (the common indentation
// of the lines after the first removed), and end in no blank.
func TestGraphQLDescriptionsDedented(t *testing.T) {
	env := apitest.New(t)
	r := env.Admin.GraphQL(introspectionQuery, nil).ExpectStatus(t, http.StatusOK)
	var descriptions []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if d, ok := x["description"].(string); ok && d != "" {
				descriptions = append(descriptions, d)
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(r.Get("data.__schema"))
	if len(descriptions) < 100 {
		t.Fatalf("only %d descriptions", len(descriptions))
	}
	for _, d := range descriptions {
		lines := strings.Split(d, "\n")
		indented := len(lines) > 1
		for _, l := range lines[1:] {
			if l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
				indented = false
			}
		}
		if indented || d != strings.TrimSpace(d) || strings.Contains(d, " \n") {
			t.Errorf("description keeps its source indentation or blanks: %q", d)
		}
	}
	// One written across lines in schema.graphql.
	me := r.Get("data.__schema.types")
	for _, ty := range me.([]any) {
		tm := ty.(map[string]any)
		if tm["name"] != "Me" {
			continue
		}
		for _, f := range tm["fields"].([]any) {
			fm := f.(map[string]any)
			if want := "The permissions the viewer holds here, as catalogue entries (a super\nadmin holds all of them, with or without a role)."; fm["name"] == "grantedPermissions" && fm["description"] != want {
				t.Errorf("Me.grantedPermissions: %q, want %q", fm["description"], want)
			}
		}
	}
}

// TestGraphQLPersistedQueriesAndDefer: automatic persisted queries work
// (a hash alone is refused until the query was sent once with it, then
// runs), and @defer is accepted and answered at once, in one response.
func TestGraphQLPersistedQueriesAndDefer(t *testing.T) {
	env := apitest.New(t)
	query := "{ viewer { user { email } } }"
	sum := sha256.Sum256([]byte(query))
	persisted := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	t.Run("HashUnknownFirst", func(t *testing.T) {
		r := env.Admin.Do(http.MethodPost, "/graphql", map[string]any{"extensions": persisted})
		if r.String("errors.0.message") != "PersistedQueryNotFound" {
			t.Fatalf("hash before the query: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("QueryWithHashThenHashAlone", func(t *testing.T) {
		env.Admin.Do(http.MethodPost, "/graphql", map[string]any{"query": query, "extensions": persisted}).ExpectStatus(t, http.StatusOK)
		r := env.Admin.Do(http.MethodPost, "/graphql", map[string]any{"extensions": persisted}).ExpectStatus(t, http.StatusOK)
		if r.String("data.viewer.user.email") != "admin@example.com" {
			t.Fatalf("persisted query: %s", r.Raw)
		}
	})
	t.Run("DeferAnsweredAtOnce", func(t *testing.T) {
		r := env.Admin.GraphQL("{ viewer { user { id } ... @defer { organization { name } } } }", nil).ExpectStatus(t, http.StatusOK)
		if r.Get("errors") != nil || r.String("data.viewer.user.id") == "" {
			t.Fatalf("@defer: %s", r.Raw)
		}
		t.Logf("@defer answer: %s", r.Raw)
	})
}
