-- Issue 30 (database/listindex.go): the list's order with the id, so that a
-- deep page's ids are read from the index alone (database.PageAt). Built
-- CONCURRENTLY so writes go on while it builds; CONCURRENTLY cannot run in
-- a transaction block, so this file holds this one statement (golang-migrate
-- sends a file as one simple query; a single statement runs outside any
-- transaction). If the build fails half-way the migration is dirty and an
-- INVALID index is left: DROP INDEX CONCURRENTLY call_log_organization_id_started_at_id, force the
-- previous version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "call_log_organization_id_started_at_id" ON "call_logs" ("organization_id", "started_at", "id");
