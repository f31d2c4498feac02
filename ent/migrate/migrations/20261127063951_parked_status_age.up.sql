-- create index "parkedstatus_created_at" to table: "parked_status"
CREATE INDEX "parkedstatus_created_at" ON "parked_status" ("created_at");
