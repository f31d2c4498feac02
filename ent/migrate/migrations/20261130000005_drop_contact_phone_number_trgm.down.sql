-- One statement, outside a transaction (CONCURRENTLY).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "contact_phone_number_trgm" ON "contacts" USING gin ("phone_number" gin_trgm_ops);
