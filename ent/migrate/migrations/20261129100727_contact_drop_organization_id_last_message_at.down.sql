-- One statement, outside a transaction (see the up migration).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "contact_organization_id_last_message_at" ON "contacts" ("organization_id", "last_message_at");
