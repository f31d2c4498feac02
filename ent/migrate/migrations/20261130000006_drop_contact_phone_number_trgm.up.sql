-- Issue 30: contact_phone_number_hours (an earlier migration) serves what
-- contact_phone_number_trgm did (a GIN index answers a condition on any of its
-- columns). One statement, outside a transaction (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "contact_phone_number_trgm";
