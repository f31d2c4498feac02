-- One statement, outside a transaction (CONCURRENTLY).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "message_body_search" ON "messages" USING gin (to_tsvector('simple'::regconfig, (content ->> 'body'::text)));
