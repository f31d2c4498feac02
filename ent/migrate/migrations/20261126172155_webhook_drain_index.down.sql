-- reverse: create index "webhookdelivery_waiting_subscription_due" to table: "webhook_deliveries"
DROP INDEX "webhookdelivery_waiting_subscription_due";
