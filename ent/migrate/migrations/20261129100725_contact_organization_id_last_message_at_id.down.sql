-- One statement, outside a transaction (see the up migration).
DROP INDEX CONCURRENTLY IF EXISTS "contact_organization_id_last_message_at_id";
