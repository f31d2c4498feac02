-- Issue 30: contact_organization_id_last_message_at_id (the previous
-- migration) serves what this index did and GraphQL's order by last
-- message; this prefix of it only cost every contact write. Dropped
-- CONCURRENTLY, alone in its file (see the previous migration), so no
-- read or write of contacts waits on the drop.
DROP INDEX CONCURRENTLY IF EXISTS "contact_organization_id_last_message_at";
