-- reverse: create index "parkedstatus_created_at" to table: "parked_status"
DROP INDEX "parkedstatus_created_at";
