-- Issue 30 (database/listindex.go): built CONCURRENTLY so writes go on
-- while it builds; CONCURRENTLY cannot run in a transaction block, so this
-- file holds this one statement (golang-migrate sends a file as one simple
-- query; a single statement runs outside any transaction). If the build
-- fails half-way the migration is dirty and an INVALID index is left: DROP
-- INDEX CONCURRENTLY message_contact_id_chat_account_created_at, force the previous version and migrate again
-- (docs/development.md).
CREATE INDEX CONCURRENTLY "message_contact_id_chat_account_created_at" ON "messages" ("contact_id", "chat_account", "created_at", "id");
