package rule_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// bypassList is the reviewed list of privacy bypasses: one table row a
// package and reason, with how many sites carry it and why it is needed.
const bypassList = "../../docs/privacy-bypasses.md"

// TestPrivacyBypassesReviewed: every privacy bypass of the module's
// hand-written code is rule.Bypass with a literal reason, and every
// package and reason stands in docs/privacy-bypasses.md with its number
// of sites; a new bypass, a changed reason or a stale row fails until the
// list is reviewed. Test files (fixtures) are outside the list.
func TestPrivacyBypassesReviewed(t *testing.T) {
	sites, problems := bypassSites(t, "../..")
	for _, p := range problems {
		t.Error(p)
	}
	listed := listedBypasses(t)
	for k, n := range sites {
		if listed[k] != n {
			t.Errorf("%s %q: %d sites in the code, %d listed in %s", k.pkg, k.reason, n, listed[k], bypassList)
		}
	}
	for k, n := range listed {
		if _, ok := sites[k]; !ok {
			t.Errorf("%s %q: listed (%d sites) in %s but in the code no more", k.pkg, k.reason, n, bypassList)
		}
	}
}

type bypass struct{ pkg, reason string }

// bypassSites walks the module's hand-written non-test Go files (ent/ is
// generated, but for this package) and counts rule.Bypass calls by
// package and reason. A reason that is not a string literal, or a
// privacy decision made outside this package, is a problem.
func bypassSites(t *testing.T, root string) (map[bypass]int, []string) {
	sites := map[bypass]int{}
	var problems []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && path != root {
			switch {
			case rel == "ent", strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", d.Name() == "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch callee(call) {
			case "rule.Bypass":
				reason, err := literalReason(call)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", fset.Position(call.Pos()), err))
					return true
				}
				sites[bypass{pkg, reason}]++
			case "privacy.DecisionContext":
				problems = append(problems, fmt.Sprintf("%s: a privacy decision outside ent/rule; use rule.Bypass(ctx, reason)", fset.Position(call.Pos())))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sites, problems
}

// callee is pkg.Func of a call to a package-level function.
func callee(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return x.Name + "." + sel.Sel.Name
}

func literalReason(call *ast.CallExpr) (string, error) {
	if len(call.Args) != 2 {
		return "", fmt.Errorf("rule.Bypass takes a context and a reason")
	}
	lit, ok := call.Args[1].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", fmt.Errorf("rule.Bypass's reason must be a string literal, to be found by grep and listed")
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("rule.Bypass needs a reason")
	}
	return s, nil
}

// listedBypasses reads the list's table rows: | `package` | `reason` |
// sites | why |.
func listedBypasses(t *testing.T) map[bypass]int {
	raw, err := os.ReadFile(bypassList)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[bypass]int{}
	for i, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		k := bypass{strings.Trim(strings.TrimSpace(cells[1]), "`"), strings.Trim(strings.TrimSpace(cells[2]), "`")}
		n, err := strconv.Atoi(strings.TrimSpace(cells[3]))
		if err != nil {
			t.Fatalf("%s:%d: sites %q is not a number", bypassList, i+1, cells[3])
		}
		if _, dup := listed[k]; dup {
			t.Errorf("%s:%d: %s %q listed twice", bypassList, i+1, k.pkg, k.reason)
		}
		listed[k] = n
	}
	return listed
}

// TestBypassListOrder keeps the list readable: rows sorted by package,
// then reason.
func TestBypassListOrder(t *testing.T) {
	raw, err := os.ReadFile(bypassList)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	if !sort.StringsAreSorted(rows) {
		t.Errorf("%s: rows are not sorted by package and reason", bypassList)
	}
}
