-- A waiting delivery always has next_attempt_at (a drain claims by it);
-- none is known without one, but a row written so would never be sent.
UPDATE "webhook_deliveries" SET "next_attempt_at" = "created_at"
WHERE "status" IN ('pending', 'retrying') AND "next_attempt_at" IS NULL;
-- drop index "webhookdelivery_organization_id" from table: "webhook_deliveries"
DROP INDEX "webhookdelivery_organization_id";
-- drop index "webhookdelivery_status_next_attempt_at" from table: "webhook_deliveries"
DROP INDEX "webhookdelivery_status_next_attempt_at";
-- modify "webhook_deliveries" table
ALTER TABLE "webhook_deliveries" ADD COLUMN "leased_until" timestamptz NULL;
-- create index "webhookdelivery_waiting_subscription_due" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_waiting_subscription_due" ON "webhook_deliveries" ("subscription_id", "next_attempt_at") WHERE (((status)::text = 'pending'::text) OR ((status)::text = 'retrying'::text));
-- drop index "webhookdeliveryattempt_organization_id" from table: "webhook_delivery_attempts"
DROP INDEX "webhookdeliveryattempt_organization_id";
-- create index "webhookdeliveryattempt_delivery_id_attempt" to table: "webhook_delivery_attempts"
CREATE INDEX "webhookdeliveryattempt_delivery_id_attempt" ON "webhook_delivery_attempts" ("delivery_id", "attempt");

-- Room in each page for the claim's update of the same row (attempts,
-- leased_until: no indexed column), so that it is a HOT update.
ALTER TABLE "webhook_deliveries" SET (fillfactor = 80);
