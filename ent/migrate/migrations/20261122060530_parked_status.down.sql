-- reverse: create index "parkedstatus_organization_id" to table: "parked_status"
DROP INDEX "parkedstatus_organization_id";
-- reverse: create index "parkedstatus_chat_message_id_status" to table: "parked_status"
DROP INDEX "parkedstatus_chat_message_id_status";
-- reverse: create "parked_status" table
DROP TABLE "parked_status";
