-- drop index "inboundevent_status_created_at" from table: "inbound_events"
DROP INDEX "inboundevent_status_created_at";
-- modify "inbound_events" table
ALTER TABLE "inbound_events" ADD COLUMN "lane" bigint NOT NULL DEFAULT 0;
-- create index "inboundevent_status_lane_created_at" to table: "inbound_events"
CREATE INDEX "inboundevent_status_lane_created_at" ON "inbound_events" ("status", "lane", "created_at");
