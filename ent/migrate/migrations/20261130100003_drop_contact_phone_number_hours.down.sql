-- One statement, outside a transaction (CONCURRENTLY).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "contact_phone_number_hours" ON "contacts" USING gin ("phone_number" gin_trgm_ops, contact_hour_key(organization_id, last_message_at, created_at));
