-- reverse: create index "message_organization_id_bot_source" to table: "messages"
DROP INDEX "message_organization_id_bot_source";
-- reverse: modify "messages" table
ALTER TABLE "messages" DROP COLUMN "bot_source";
