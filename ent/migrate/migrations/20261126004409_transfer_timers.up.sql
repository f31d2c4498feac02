-- create "transfer_timers" table
CREATE TABLE "transfer_timers" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "transfer_id" uuid NOT NULL, "kind" character varying NOT NULL, "due_at" timestamptz NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "agent_id" uuid NULL, "fired_at" timestamptz NULL, "outcome" character varying NOT NULL DEFAULT '', "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "transfer_timers_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "transfertimer_organization_id" to table: "transfer_timers"
CREATE INDEX "transfertimer_organization_id" ON "transfer_timers" ("organization_id");
-- create index "transfertimer_status_due_at" to table: "transfer_timers"
CREATE INDEX "transfertimer_status_due_at" ON "transfer_timers" ("status", "due_at");
-- create index "transfertimer_transfer_id_status" to table: "transfer_timers"
CREATE INDEX "transfertimer_transfer_id_status" ON "transfer_timers" ("transfer_id", "status");
