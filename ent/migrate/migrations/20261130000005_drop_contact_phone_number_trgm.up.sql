-- Issue 30: contact_phone_number_hours (an earlier migration) serves what
-- contact_phone_number_trgm did. One statement, outside a transaction
-- (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "contact_phone_number_trgm";
