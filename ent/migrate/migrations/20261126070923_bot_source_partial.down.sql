-- reverse: create index "message_organization_id_bot_source" to table: "messages"
DROP INDEX "message_organization_id_bot_source";
-- reverse: drop index "message_organization_id_bot_source" from table: "messages"
CREATE INDEX "message_organization_id_bot_source" ON "messages" ("organization_id", "bot_source");
