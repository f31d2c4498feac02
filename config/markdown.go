package config

import (
	"fmt"
	"strings"
)

// Markdown renders the options table for the README: variable, default,
// whether it is secret (and so may be given as a NAME_FILE file), and meaning.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| variable | default | secret | meaning |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, o := range options {
		def := "empty"
		switch {
		case o.DefaultDoc != "":
			def = o.DefaultDoc
		case o.Default != "":
			def = "`" + o.Default + "`"
		}
		secret := "no"
		if o.Secret {
			secret = "yes (or `" + o.Name + "_FILE`)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", o.Name, cell(def), secret, cell(o.Description))
	}
	b.WriteString("\nSecret options may instead be read from a file named by the same variable with `_FILE` appended (for example `JWT_SECRET_FILE=/run/secrets/jwt`); setting both is an error. An empty value counts as unset (except where an option says otherwise).\n")
	return b.String()
}

// cell escapes the characters that would break a table row.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
