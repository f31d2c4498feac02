-- Issue 30: campaign_recipient_campaign_id_id_org (the previous migration)
-- serves what this index did and a deep page from the index alone.
-- Dropped CONCURRENTLY, alone in its file, so no read or write of
-- campaign_recipients waits on the drop.
DROP INDEX CONCURRENTLY IF EXISTS "campaign_recipient_campaign_id_id";
