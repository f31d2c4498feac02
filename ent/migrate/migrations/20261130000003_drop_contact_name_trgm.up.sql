-- Issue 30: contact_names_hours (an earlier migration) serves what
-- contact_name_trgm did. One statement, outside a transaction
-- (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "contact_name_trgm";
