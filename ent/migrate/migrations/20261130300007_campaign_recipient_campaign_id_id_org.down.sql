-- One statement, outside a transaction (see the up migration).
DROP INDEX CONCURRENTLY IF EXISTS "campaign_recipient_campaign_id_id_org";
