-- Issue 30: contact_phone_hours (the previous migration) serves what
-- contact_phone_number_hours did. One statement, outside a transaction
-- (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "contact_phone_number_hours";
