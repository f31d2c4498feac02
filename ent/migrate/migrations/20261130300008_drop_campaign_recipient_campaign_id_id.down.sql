-- One statement, outside a transaction (see the up migration).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "campaign_recipient_campaign_id_id" ON "campaign_recipients" ("campaign_id", "id");
