-- One statement, outside a transaction (CONCURRENTLY).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "contact_profile_name_trgm" ON "contacts" USING gin ("profile_name" gin_trgm_ops);
