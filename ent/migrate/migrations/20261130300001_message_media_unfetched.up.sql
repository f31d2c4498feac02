-- A recovery sweep's partial index (database/sweepindex.go): built
-- CONCURRENTLY so writes go on while it builds; CONCURRENTLY cannot run in
-- a transaction block, so this file holds this one statement (golang-migrate
-- sends a file as one simple query; a single statement runs outside any
-- transaction). If the build fails half-way the migration is dirty and an
-- INVALID index is left: DROP INDEX CONCURRENTLY message_media_unfetched, force the
-- previous version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "message_media_unfetched" ON "messages" ("created_at") WHERE direction = 'incoming' AND media_url = '' AND message_type IN ('image', 'video', 'audio', 'document', 'sticker');
