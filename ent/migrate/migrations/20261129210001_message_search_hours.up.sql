-- Issue 30 (database/searchindex.go): the message search index with each
-- message's organization and hour beside its words
-- (database.MessageSearchIndex). Built CONCURRENTLY so writes go on while
-- it builds; CONCURRENTLY cannot run in a transaction block, so this file
-- holds this one statement only. If the build fails half-way the migration
-- is dirty and an INVALID index is left: DROP INDEX CONCURRENTLY
-- message_search, force the previous version and migrate again
-- (docs/development.md).
CREATE INDEX CONCURRENTLY "message_search" ON "messages" USING gin ((to_tsvector('simple'::regconfig, (content ->> 'body'::text)) || message_hour_key(organization_id, created_at)));
