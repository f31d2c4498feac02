-- One statement, outside a transaction (CONCURRENTLY).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "contact_name_trgm" ON "contacts" USING gin ("name" gin_trgm_ops);
