-- modify "messages" table
ALTER TABLE "messages" ADD COLUMN "bot_handled_at" timestamptz NULL;
-- Messages received before the chatbot's runtime existed are not answered
-- now: they count as handled when they arrived.
UPDATE "messages" SET "bot_handled_at" = "created_at" WHERE "direction" = 'incoming';
-- create index "message_bot_pending" to table: "messages"
CREATE INDEX "message_bot_pending" ON "messages" ("contact_id", "created_at") WHERE (((direction)::text = 'incoming'::text) AND (bot_handled_at IS NULL));
