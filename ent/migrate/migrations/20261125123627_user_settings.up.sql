-- modify "users" table
ALTER TABLE "users" ADD COLUMN "settings" jsonb NULL;
