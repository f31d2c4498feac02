-- Issue 30: contact_profile_name_hours (an earlier migration) serves what
-- contact_profile_name_trgm did (a GIN index answers a condition on any of its
-- columns). One statement, outside a transaction (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "contact_profile_name_trgm";
