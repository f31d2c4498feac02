-- reverse: create index "webhookdelivery_waiting_subscription_due" to table: "webhook_deliveries"
DROP INDEX "webhookdelivery_waiting_subscription_due";
-- reverse: modify "webhook_deliveries" table
ALTER TABLE "webhook_deliveries" DROP COLUMN "leased_until";
-- reverse: drop index "webhookdelivery_status_next_attempt_at" from table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_status_next_attempt_at" ON "webhook_deliveries" ("status", "next_attempt_at");
ALTER TABLE "webhook_deliveries" RESET (fillfactor);
