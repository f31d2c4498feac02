-- Issue 30: message_search (the previous migration) indexes the words
-- message_body_search did, and the hours; the search reads it alone.
-- One statement, outside a transaction (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "message_body_search";
