-- reverse: create index "transfertimer_transfer_id_status" to table: "transfer_timers"
DROP INDEX "transfertimer_transfer_id_status";
-- reverse: create index "transfertimer_status_due_at" to table: "transfer_timers"
DROP INDEX "transfertimer_status_due_at";
-- reverse: create index "transfertimer_organization_id" to table: "transfer_timers"
DROP INDEX "transfertimer_organization_id";
-- reverse: create "transfer_timers" table
DROP TABLE "transfer_timers";
