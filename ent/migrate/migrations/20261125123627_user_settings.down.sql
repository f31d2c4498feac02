-- reverse: modify "users" table
ALTER TABLE "users" DROP COLUMN "settings";
