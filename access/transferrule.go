package access

// ManageTransfers is the permission that lets a member manage chatbot
// transfers that are not their own (the membership rule ManagesTransfers).
// The catalogue has no transfers resource, and a key of its own would
// change every role's permission list and the OpenAPI document. Handing
// a transfer to someone is handing them the contact's conversation, which
// is what contacts:update governs when a contact is assigned (PUT
// /api/contacts/{id}/assign), so that permission grants it: Admin and
// Manager hold it, Agent does not.
const ManageTransfers = "contacts:update"

// ManagesTransfers is the membership rule of the transfer operations
// (package transfers) beyond their own permission: a member holding
// ManageTransfers assigns a transfer to someone else, unassigns or resumes
// one someone else holds, picks from a team's queue they are not a member
// of or when agent pickup is off, and sees every transfer; anyone else
// sees and acts on their own transfers and the queues they may pick from.
func ManagesTransfers(v interface{ Can(string) bool }) bool { return v.Can(ManageTransfers) }
