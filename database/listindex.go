package database

// The lists' hand-written indexes (issue 30, point 4): each serves a list
// of the inbox in its order, so that a first page reads the index and
// stops under the LIMIT instead of sorting the organization's rows (the
// plan tests of each package assert it: TestListPlans). They are
// hand-written, like the inbox's (inboxindex.go), because the tables may
// already hold millions of rows: the versioned migrations build each
// CONCURRENTLY, one statement per file, and AutoMigrate creates them on
// PostgreSQL.
var listIndexes = []struct{ table, name, create string }{
	// The recipients of one campaign in import order (campaigns.Recipients:
	// ORDER BY id), all of them and by status. The primary key alone walks
	// every older campaign's recipients before the campaign's own. The
	// organization is included for the tenant's filter, so that a deep
	// page's ids are read from the index alone (database.PageAt); it
	// replaces (campaign_id, id), which fetched each skipped row.
	{"campaign_recipients", "campaign_recipient_campaign_id_id_org",
		"CREATE INDEX %scampaign_recipient_campaign_id_id_org ON campaign_recipients (campaign_id, id) INCLUDE (organization_id)"},
	{"campaign_recipients", "campaign_recipient_campaign_id_status_id",
		"CREATE INDEX %scampaign_recipient_campaign_id_status_id ON campaign_recipients (campaign_id, status, id)"},
	// The chatbot sessions, most recently active first
	// (chatbot.ListSessions: ORDER BY last_activity DESC, id), all of
	// them or of a status the walk finds soon (the active ones are the
	// bot's working set: the status index finds them), and GraphQL's
	// connection in its default order (id). The cost: last_activity moves
	// with every step of a bot conversation, and with it indexed such an
	// update is no longer HOT (it writes an entry in each index of the
	// table).
	{"chatbot_sessions", "chatbot_session_organization_id_last_activity",
		"CREATE INDEX %schatbot_session_organization_id_last_activity ON chatbot_sessions (organization_id, last_activity DESC, id)"},
	{"chatbot_sessions", "chatbot_session_organization_id_id",
		"CREATE INDEX %schatbot_session_organization_id_id ON chatbot_sessions (organization_id, id)"},
	// The call logs (calling.CallLogs: ORDER BY started_at DESC, id
	// DESC; every filter but these walks the first): the order with the
	// id, so that a deep page's ids are read from the index alone
	// (database.PageAt; it replaces ent's (organization_id, started_at),
	// which left the id to each row and sorted ties),
	// part of the caller's number (LIKE '%digits%', served by trigrams),
	// one contact's calls and the calls an agent took (a member without
	// call_logs:read sees only those), each in the list's order.
	{"call_logs", "call_log_organization_id_started_at_id",
		"CREATE INDEX %scall_log_organization_id_started_at_id ON call_logs (organization_id, started_at, id)"},
	{"call_logs", "call_log_caller_phone_trgm",
		"CREATE INDEX %scall_log_caller_phone_trgm ON call_logs USING gin (caller_phone gin_trgm_ops)"},
	{"call_logs", "call_log_contact_id_started_at",
		"CREATE INDEX %scall_log_contact_id_started_at ON call_logs (contact_id, started_at, id)"},
	{"call_logs", "call_log_organization_id_agent_id_started_at",
		"CREATE INDEX %scall_log_organization_id_agent_id_started_at ON call_logs (organization_id, agent_id, started_at, id)"},
	// The transfers to agents, newest first (transfers.List: ORDER BY
	// transferred_at DESC, id DESC), with the id for a deep page's ids
	// (database.PageAt); it replaces ent's (organization_id,
	// transferred_at), which the agents' analytics read by period and
	// this serves as well.
	{"agent_transfers", "agent_transfer_organization_id_transferred_at_id",
		"CREATE INDEX %sagent_transfer_organization_id_transferred_at_id ON agent_transfers (organization_id, transferred_at, id)"},
	// The call transfers (calling.CallTransfers: ORDER BY transferred_at
	// DESC, id DESC; the waiting ones, the queues' working set, may be
	// found by status and sorted), and a call log's transfers (GraphQL's
	// callLogs { transfers }, a call log's detail), which were a Seq
	// Scan: PostgreSQL does not index a foreign key's column.
	{"call_transfers", "call_transfer_organization_id_transferred_at",
		"CREATE INDEX %scall_transfer_organization_id_transferred_at ON call_transfers (organization_id, transferred_at, id)"},
	{"call_transfers", "call_transfer_call_log_id",
		"CREATE INDEX %scall_transfer_call_log_id ON call_transfers (call_log_id, transferred_at, id)"},
	// The templates, newest first (templates.List: ORDER BY created_at
	// DESC, id DESC; the account, status and category filters walk it),
	// and their search: ILIKE '%term%' on name or display name, served
	// by trigrams.
	{"templates", "template_organization_id_created_at",
		"CREATE INDEX %stemplate_organization_id_created_at ON templates (organization_id, created_at, id)"},
	{"templates", "template_name_trgm",
		"CREATE INDEX %stemplate_name_trgm ON templates USING gin (name gin_trgm_ops)"},
	{"templates", "template_display_name_trgm",
		"CREATE INDEX %stemplate_display_name_trgm ON templates USING gin (display_name gin_trgm_ops)"},
	// GraphQL's contacts ordered by last message (ent's pager: ORDER BY
	// last_message_at DESC, id DESC, NULLS FIRST as PostgreSQL sorts a
	// descending column), read backwards, and its where filters on
	// last_message_at. It replaces ent's (organization_id,
	// last_message_at), whose ties (the contacts without a message, a
	// tenth of an organization) were sorted in full by id for each page.
	{"contacts", "contact_organization_id_last_message_at_id",
		"CREATE INDEX %scontact_organization_id_last_message_at_id ON contacts (organization_id, last_message_at, id)"},
	// The history of one account of a conversation (messaging.History
	// with account): its page and its bounded total read the account's
	// range alone, an index-only count, where the conversation's index
	// walked every account's messages and fetched each row to filter it.
	{"messages", "message_contact_id_chat_account_created_at",
		"CREATE INDEX %smessage_contact_id_chat_account_created_at ON messages (contact_id, chat_account, created_at, id)"},
}

func init() { handWrittenIndexes = append(handWrittenIndexes, listIndexes...) }
