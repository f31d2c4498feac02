package access

// ManageTransfers is the permission that lets a member manage chatbot
// transfers that are not their own (the membership rule ManagesTransfers):
// a key of its own, held by Admin and Manager and not by Agent. Until
// 2026-11-29 the rule borrowed contacts:update; when the key joined the
// catalogue every role holding contacts:update was granted it once
// (EnsureSystemRoles, derivedPermissions), so no role lost what it could do.
const ManageTransfers = "transfers:manage"

// ManagesTransfers is the membership rule of the transfer operations
// (package transfers) beyond their own permission: a member holding
// ManageTransfers assigns a transfer to someone else, unassigns or resumes
// one someone else holds, picks from a team's queue they are not a member
// of or when agent pickup is off, and sees every transfer; anyone else
// sees and acts on their own transfers and the queues they may pick from.
func ManagesTransfers(v interface{ Can(string) bool }) bool { return v.Can(ManageTransfers) }

// ManagesOthersTransfers is ManagesTransfers as the operation table states
// it (the OpenAPI document's x-permission).
var ManagesOthersTransfers = Rule{
	Name:     "managesTransfers",
	Requires: ManageTransfers + " to act on another member's transfer or a queue outside the member's teams",
}
