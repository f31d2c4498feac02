-- A sweep's partial index (database/sweepindex.go): built
-- CONCURRENTLY so writes go on while it builds; CONCURRENTLY cannot run in
-- a transaction block, so this file holds this one statement (golang-migrate
-- sends a file as one simple query; a single statement runs outside any
-- transaction). If the build fails half-way the migration is dirty and an
-- INVALID index is left: DROP INDEX CONCURRENTLY chatbot_session_active_idle, force the
-- previous version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "chatbot_session_active_idle" ON "chatbot_sessions" ("organization_id", "last_activity" DESC, "id") WHERE status = 'active';
