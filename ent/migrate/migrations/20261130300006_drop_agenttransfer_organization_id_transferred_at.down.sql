-- One statement, outside a transaction (see the up migration).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "agenttransfer_organization_id_transferred_at" ON "agent_transfers" ("organization_id", "transferred_at");
