-- Full-text search of message text (issue 30, point 5): a GIN index over
-- the words of content.body in the language-neutral simple configuration
-- (database.MessageBodySearchIndex). Built CONCURRENTLY so writes go on
-- while it builds; CONCURRENTLY cannot run in a transaction block, so this
-- file holds this one statement only (golang-migrate sends a file as one
-- simple query: a single statement runs outside any transaction). If the
-- build fails half-way the migration is dirty and an INVALID index is
-- left: DROP INDEX CONCURRENTLY message_body_search, force the previous
-- version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "message_body_search" ON "messages" USING gin (to_tsvector('simple'::regconfig, (content ->> 'body'::text)));
