-- reverse: create index "message_organization_id_sent_by_user_id_created_at" to table: "messages"
DROP INDEX "message_organization_id_sent_by_user_id_created_at";
-- reverse: create index "contact_organization_id_created_at" to table: "contacts"
DROP INDEX "contact_organization_id_created_at";
-- reverse: create index "chatbotsession_organization_id_started_at" to table: "chatbot_sessions"
DROP INDEX "chatbotsession_organization_id_started_at";
-- reverse: create index "agenttransfer_organization_id_transferred_at" to table: "agent_transfers"
DROP INDEX "agenttransfer_organization_id_transferred_at";
