-- One statement, outside a transaction (see the up migration).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "calllog_organization_id_started_at" ON "call_logs" ("organization_id", "started_at");
