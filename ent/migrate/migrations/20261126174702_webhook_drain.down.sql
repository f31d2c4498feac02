-- reverse: create index "webhookdeliveryattempt_delivery_id_attempt" to table: "webhook_delivery_attempts"
DROP INDEX "webhookdeliveryattempt_delivery_id_attempt";
-- reverse: drop index "webhookdeliveryattempt_organization_id" from table: "webhook_delivery_attempts"
CREATE INDEX "webhookdeliveryattempt_organization_id" ON "webhook_delivery_attempts" ("organization_id");
-- reverse: create index "webhookdelivery_waiting_subscription_due" to table: "webhook_deliveries"
DROP INDEX "webhookdelivery_waiting_subscription_due";
-- reverse: modify "webhook_deliveries" table
ALTER TABLE "webhook_deliveries" DROP COLUMN "leased_until";
-- reverse: drop index "webhookdelivery_status_next_attempt_at" from table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_status_next_attempt_at" ON "webhook_deliveries" ("status", "next_attempt_at");
-- reverse: drop index "webhookdelivery_organization_id" from table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_organization_id" ON "webhook_deliveries" ("organization_id");
ALTER TABLE "webhook_deliveries" RESET (fillfactor);
