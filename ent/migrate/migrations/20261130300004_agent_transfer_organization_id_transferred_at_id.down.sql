-- One statement, outside a transaction (see the up migration).
DROP INDEX CONCURRENTLY IF EXISTS "agent_transfer_organization_id_transferred_at_id";
