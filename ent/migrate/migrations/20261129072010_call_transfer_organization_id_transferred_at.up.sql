-- Issue 30, point 4 (database/listindex.go): built CONCURRENTLY so writes
-- go on while it builds; CONCURRENTLY cannot run in a transaction block,
-- so this file holds this one statement (golang-migrate sends a file as
-- one simple query; a single statement runs outside any transaction). If
-- the build fails half-way the migration is dirty and an INVALID index is
-- left: DROP INDEX CONCURRENTLY call_transfer_organization_id_transferred_at, force the previous
-- version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "call_transfer_organization_id_transferred_at" ON "call_transfers" ("organization_id", "transferred_at", "id");
