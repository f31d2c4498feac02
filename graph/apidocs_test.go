package graph_test

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"switchboard/graph"
)

// TestDocumentedConnections: docs/api.md's list of the Relay connections
// names every field of the schema that returns a connection (Query's by
// their name, other types' as Type.field), none more, and counts them
// right.
func TestDocumentedConnections(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: &graph.Resolver{}}).Schema()
	var inSchema []string
	for _, def := range schema.Types {
		if def.Kind != ast.Object || strings.HasPrefix(def.Name, "__") {
			continue
		}
		for _, f := range def.Fields {
			if f.Type.Elem != nil || !strings.HasSuffix(f.Type.Name(), "Connection") {
				continue
			}
			name := def.Name + "." + f.Name
			if def.Name == schema.Query.Name {
				name = f.Name
			}
			inSchema = append(inSchema, name)
		}
	}
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	listed, count := documentedConnections(t, string(doc))
	sort.Strings(inSchema)
	sorted := slices.Sorted(slices.Values(listed))
	if !slices.Equal(sorted, inSchema) {
		t.Errorf("docs/api.md lists the connections\n%v\nthe schema has\n%v", sorted, inSchema)
	}
	if count != len(listed) {
		t.Errorf("docs/api.md counts %d connections and lists %d", count, len(listed))
	}
}

// documentedConnections reads the "Relay connections" item of docs/api.md:
// the names after its header's parenthesis, up to the count in
// parentheses.
func documentedConnections(t *testing.T, doc string) (names []string, count int) {
	t.Helper()
	_, item, ok := strings.Cut(doc, "\n- **Relay connections**")
	if !ok {
		t.Fatal(`docs/api.md has no "- **Relay connections**" item`)
	}
	if end := strings.Index(item, "\n- "); end >= 0 {
		item = item[:end]
	}
	_, list, ok := strings.Cut(item, "): ")
	m := regexp.MustCompile(`\((\d+)[;)]`).FindStringSubmatchIndex(list)
	if !ok || m == nil {
		t.Fatalf("the Relay connections item has no list ending in a count: %s", item)
	}
	count, _ = strconv.Atoi(list[m[2]:m[3]])
	for _, n := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list[:m[0]], -1) {
		names = append(names, n[1])
	}
	return names, count
}
