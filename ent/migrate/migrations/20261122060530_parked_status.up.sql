-- create "parked_status" table
CREATE TABLE "parked_status" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_message_id" character varying NOT NULL, "status" character varying NOT NULL, "error_message" character varying NOT NULL DEFAULT '', "platform_timestamp" timestamptz NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "parked_status_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "parkedstatus_chat_message_id_status" to table: "parked_status"
CREATE UNIQUE INDEX "parkedstatus_chat_message_id_status" ON "parked_status" ("chat_message_id", "status");
-- create index "parkedstatus_organization_id" to table: "parked_status"
CREATE INDEX "parkedstatus_organization_id" ON "parked_status" ("organization_id");
