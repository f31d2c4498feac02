// Package access owns who may do what: the permission catalogue, the system
// roles, authentication of every kind of credential (passwords, JWTs, API
// keys), token rotation, and the seeding of organizations. It builds the
// viewer that the data layer's privacy rules read.
package access

import (
	"sort"

	"switchboard/apperr"
)

// PermissionDef is one entry of the catalogue.
type PermissionDef struct {
	Resource    string
	Action      string
	Description string
}

// Key is "resource:action".
func (p PermissionDef) Key() string { return p.Resource + ":" + p.Action }

var crud = []string{"read", "create", "update", "delete"}

// Catalogue is the spec's permission catalogue, plus organizations:read,
// call_logs:read, canned_responses:* (the spec's rule for canned
// responses, "Admin and Manager may list, create, update, delete and use;
// Agent may list and use only", as permissions custom roles can hold too)
// and transfers:manage (acting on other members' chatbot transfers; see
// transferrule.go).
var Catalogue = buildCatalogue()

func buildCatalogue() []PermissionDef {
	var out []PermissionDef
	add := func(resource string, actions ...string) {
		for _, a := range actions {
			out = append(out, PermissionDef{Resource: resource, Action: a, Description: describe(resource, a)})
		}
	}
	for _, r := range []string{"users", "roles", "teams", "contacts", "templates", "campaigns", "flows", "accounts", "webhooks"} {
		add(r, crud...)
	}
	add("messages", "read", "create")
	add("canned_responses", crud...)
	add("chatbot", "read", "update")
	add("settings", "read", "update")
	add("api_keys", "read", "create", "delete")
	add("analytics", "read")
	add("organizations", "read")
	add("call_logs", "read")
	add("transfers", "manage")
	return out
}

func describe(resource, action string) string {
	verbs := map[string]string{"read": "View", "create": "Create", "update": "Update", "delete": "Delete", "manage": "Manage"}
	names := map[string]string{
		"users": "users", "roles": "roles", "teams": "teams", "contacts": "contacts",
		"templates": "message templates", "campaigns": "campaigns", "flows": "form flows",
		"accounts": "business accounts", "webhooks": "outbound webhooks", "messages": "messages",
		"chatbot": "chatbot configuration", "settings": "organization settings", "api_keys": "API keys",
		"analytics": "analytics", "organizations": "all organizations", "call_logs": "all call logs",
		"canned_responses": "canned responses", "transfers": "other members' chatbot transfers",
	}
	return verbs[action] + " " + names[resource]
}

// System role names.
const (
	RoleAdmin   = "Admin"
	RoleManager = "Manager"
	RoleAgent   = "Agent"
)

// SystemRole describes a built-in role and its permission set.
type SystemRole struct {
	Name        string
	Description string
	IsDefault   bool
	Permissions []string
}

// managerExcluded are the writes a Manager may not make: user, role, API key
// and settings administration, and team creation and deletion (admin only).
var managerExcluded = map[string]bool{
	"users:create": true, "users:update": true, "users:delete": true,
	"roles:create": true, "roles:update": true, "roles:delete": true,
	"api_keys:read": true, "api_keys:create": true, "api_keys:delete": true,
	"settings:update": true,
	"teams:create":    true, "teams:update": true, "teams:delete": true,
	"organizations:read": true,
}

// agentPermissions is what an Agent works with: the inbox and read access
// to what it needs to answer customers.
var agentPermissions = []string{
	"contacts:read", "contacts:create", "messages:read", "messages:create",
	"templates:read", "chatbot:read", "teams:read", "flows:read", "canned_responses:read",
}

// SystemRoles returns the built-in roles with their permission sets.
func SystemRoles() []SystemRole {
	var all, manager []string
	for _, p := range Catalogue {
		all = append(all, p.Key())
		if !managerExcluded[p.Key()] {
			manager = append(manager, p.Key())
		}
	}
	agent := append([]string(nil), agentPermissions...)
	sort.Strings(agent)
	return []SystemRole{
		{Name: RoleAdmin, Description: "Full access to the organization", Permissions: all},
		{Name: RoleManager, Description: "Runs day-to-day operations: inbox, templates, campaigns, chatbot, analytics", Permissions: manager},
		{Name: RoleAgent, Description: "Answers customers in the shared inbox", IsDefault: true, Permissions: agent},
	}
}

// ValidPermission reports whether key is in the catalogue.
func ValidPermission(key string) bool {
	for _, p := range Catalogue {
		if p.Key() == key {
			return true
		}
	}
	return false
}

// Require checks an operation's permission: Public and Authenticated
// marks pass any viewer; a "resource:action" key needs that permission
// (a super admin and system actors hold all). It is the one permission
// check of REST and GraphQL.
func Require(v interface{ Can(string) bool }, perm string) error {
	switch perm {
	case Public, Authenticated:
		return nil
	}
	if !v.Can(perm) {
		return apperr.Forbiddenf("you do not have permission %s", perm)
	}
	return nil
}
