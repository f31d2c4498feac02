DROP TRIGGER IF EXISTS messages_counted_delete ON messages;
DROP TRIGGER IF EXISTS messages_counted_insert ON messages;
DROP TRIGGER IF EXISTS contacts_counted_delete ON contacts;
DROP TRIGGER IF EXISTS contacts_counted_insert ON contacts;
DROP FUNCTION IF EXISTS messages_counted();
DROP FUNCTION IF EXISTS contacts_counted();
-- reverse: modify "organizations" table
ALTER TABLE "organizations" DROP COLUMN "contact_count";
-- reverse: modify "contacts" table
ALTER TABLE "contacts" DROP COLUMN "message_count";
