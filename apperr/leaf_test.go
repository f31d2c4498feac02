package apperr_test

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImportsOnlyTheStandardLibrary keeps apperr a leaf that every package
// can import: the mapping of a dependency's errors lives with the code
// that knows the dependency (database, provider), not here.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			p, err := build.Default.Import(path, ".", build.FindOnly)
			if err != nil || !p.Goroot {
				t.Errorf("%s imports %s, which is not in the standard library", name, path)
			}
		}
	}
}
