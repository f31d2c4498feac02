package database

// The sweeps' hand-written indexes: partial indexes holding only the
// rows a sweep looks for, so that a sweep reads a few entries instead of
// every organization's history. The server runs the recovery sweeps at
// start and after Redis restarts without its tasks (app.go); at
// 10,000,000 messages each of the two below was a parallel scan of the
// whole table, 2 s of both cores (bench/scale, auto_explain), while the
// restarted node must serve at once. The rows they hold are few and
// short-lived: a send waits in the first until the platform gives it an
// id, an incoming media message in the second until its file is fetched,
// the ingest's text messages enter neither; a chatbot session is in the
// third while it is active. Built CONCURRENTLY by the versioned
// migrations, one statement per file, like the lists' (listindex.go).
var sweepIndexes = []struct{ table, name, create string }{
	// messaging.Service.Recover: the outgoing messages still pending
	// without a platform id.
	{"messages", "message_pending_sends",
		"CREATE INDEX %smessage_pending_sends ON messages (organization_id, id) " +
			"WHERE direction = 'outgoing' AND status = 'pending' AND chat_message_id IS NULL"},
	// media.Fetcher.Recover: the incoming media messages of the last week
	// whose file is not stored yet (the types are media.mediaTypes, in
	// its order: the planner proves the sweep's IN list implies them).
	{"messages", "message_media_unfetched",
		"CREATE INDEX %smessage_media_unfetched ON messages (created_at) " +
			"WHERE direction = 'incoming' AND media_url = '' AND message_type IN ('image', 'video', 'audio', 'document', 'sticker')"},
	// chatbot.Bot.ExpireSessions, every minute: the active sessions idle
	// past a timeout, in every organization that has it. Without it the
	// sweep read all of (organization_id, status), whose leading column
	// it does not bound: every session the bots ever had.
	{"chatbot_sessions", ActiveSessionsIndex,
		"CREATE INDEX %s" + ActiveSessionsIndex + " ON chatbot_sessions (organization_id, last_activity DESC, id) WHERE status = 'active'"},
}

func init() { handWrittenIndexes = append(handWrittenIndexes, sweepIndexes...) }

// ActiveSessionsIndex holds the chatbot's active sessions by their last
// activity, for the minute's timeout sweep (chatbot.Bot.ExpireSessions).
const ActiveSessionsIndex = "chatbot_session_active_idle"
