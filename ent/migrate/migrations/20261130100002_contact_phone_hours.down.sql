-- One statement, outside a transaction (CONCURRENTLY).
DROP INDEX CONCURRENTLY IF EXISTS "contact_phone_hours";
