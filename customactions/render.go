package customactions

import "switchboard/internal/placeholder"

// Variables are the values a template may name: contact.id,
// contact.phone_number, contact.name, contact.profile_name, user.id,
// user.name, user.email, user.role, organization.id, organization.name.
// Unknown names are left as written.
type Variables map[string]string

// RenderJSON renders a body template: each value is a JSON string where it
// stands (escaped inside a string literal, quoted standing alone), so a
// value cannot end a string or add members. Errors: a placeholder right
// after a backslash inside a string.
func RenderJSON(tmpl string, vars Variables) (string, error) {
	return placeholder.JSON(tmpl, placeholder.Map(vars))
}

// RenderURL renders a URL template: each value is percent-encoded for
// the part it stands in, so it stays within its path segment or query
// value ('/', '?', '&', '=' and '#' cannot end it). Errors: a value that
// would make a path segment "." or "..".
func RenderURL(tmpl string, vars Variables) (string, error) {
	return placeholder.URL(tmpl, placeholder.Map(vars))
}
