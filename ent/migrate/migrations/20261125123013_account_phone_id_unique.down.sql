-- reverse: create index "account_held_phone_id" to table: "accounts"
DROP INDEX "account_held_phone_id";
-- reverse: modify "accounts" table
ALTER TABLE "accounts" DROP COLUMN "held_phone_id";
-- reverse: drop index "account_phone_id" from table: "accounts"
CREATE INDEX "account_phone_id" ON "accounts" ("phone_id");
