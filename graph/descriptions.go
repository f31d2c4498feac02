package graph

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// The served schema's descriptions come from the """ blocks of the
// *.graphql files. The GraphQL spec's BlockStringValue leaves the first
// line out when it measures the common indentation; gqlparser counts it,
// so a description that starts on the opening """ kept the source
// indentation of its other lines. init dedents them as the spec says,
// once, before the schema serves anything.
func init() {
	dedentDescriptions(NewExecutableSchema(Config{}).Schema())
}

// dedentDescriptions rewrites every description of s (types, fields,
// arguments, enum values, directives) as BlockStringValue makes it.
func dedentDescriptions(s *ast.Schema) {
	for _, def := range s.Types {
		def.Description = blockStringValue(def.Description)
		for _, f := range def.Fields {
			f.Description = blockStringValue(f.Description)
			dedentArguments(f.Arguments)
		}
		for _, v := range def.EnumValues {
			v.Description = blockStringValue(v.Description)
		}
	}
	for _, d := range s.Directives {
		d.Description = blockStringValue(d.Description)
		dedentArguments(d.Arguments)
	}
}

func dedentArguments(args ast.ArgumentDefinitionList) {
	for _, a := range args {
		a.Description = blockStringValue(a.Description)
	}
}

// blockStringValue is the GraphQL spec's BlockStringValue: the common
// indentation of every line but the first is removed, then blank leading
// and trailing lines; trailing spaces of a line go too.
func blockStringValue(raw string) string {
	lines := strings.Split(raw, "\n")
	common := -1
	for _, line := range lines[1:] {
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if indent < len(line) && (common < 0 || indent < common) {
			common = indent
		}
	}
	for i := range lines {
		if i > 0 && common > 0 {
			lines[i] = lines[i][min(common, len(lines[i])):]
		}
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
