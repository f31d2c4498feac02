-- reverse: create index "message_bot_pending" to table: "messages"
DROP INDEX "message_bot_pending";
-- reverse: modify "messages" table
ALTER TABLE "messages" DROP COLUMN "bot_handled_at";
