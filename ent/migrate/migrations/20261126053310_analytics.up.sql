-- create index "agenttransfer_organization_id_transferred_at" to table: "agent_transfers"
CREATE INDEX "agenttransfer_organization_id_transferred_at" ON "agent_transfers" ("organization_id", "transferred_at");
-- create index "chatbotsession_organization_id_started_at" to table: "chatbot_sessions"
CREATE INDEX "chatbotsession_organization_id_started_at" ON "chatbot_sessions" ("organization_id", "started_at");
-- create index "contact_organization_id_created_at" to table: "contacts"
CREATE INDEX "contact_organization_id_created_at" ON "contacts" ("organization_id", "created_at");
-- create index "message_organization_id_sent_by_user_id_created_at" to table: "messages"
CREATE INDEX "message_organization_id_sent_by_user_id_created_at" ON "messages" ("organization_id", "sent_by_user_id", "created_at") WHERE (sent_by_user_id IS NOT NULL);
