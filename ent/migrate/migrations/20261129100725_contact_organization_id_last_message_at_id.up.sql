-- Issue 30 (database/listindex.go): built CONCURRENTLY so writes go on
-- while it builds; CONCURRENTLY cannot run in a transaction block, so this
-- file holds this one statement (golang-migrate sends a file as one simple
-- query; a single statement runs outside any transaction). If the build
-- fails half-way the migration is dirty and an INVALID index is left: DROP
-- INDEX CONCURRENTLY contact_organization_id_last_message_at_id, force the previous version and migrate again
-- (docs/development.md).
CREATE INDEX CONCURRENTLY "contact_organization_id_last_message_at_id" ON "contacts" ("organization_id", "last_message_at", "id");
