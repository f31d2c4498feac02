-- One statement, outside a transaction (see the up migration).
DROP INDEX CONCURRENTLY IF EXISTS "call_log_organization_id_started_at_id";
