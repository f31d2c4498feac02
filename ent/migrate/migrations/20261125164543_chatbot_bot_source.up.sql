-- modify "messages" table
ALTER TABLE "messages" ADD COLUMN "bot_source" character varying NULL;
-- create index "message_organization_id_bot_source" to table: "messages"
CREATE INDEX "message_organization_id_bot_source" ON "messages" ("organization_id", "bot_source");
