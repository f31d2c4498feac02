-- modify "contacts" table
ALTER TABLE "contacts" ADD COLUMN "message_count" bigint NOT NULL DEFAULT 0;
-- modify "organizations" table
ALTER TABLE "organizations" ADD COLUMN "contact_count" bigint NOT NULL DEFAULT 0;
-- The counters (database/counters.go, issue 30 point 1): triggers keep
-- organizations.contact_count and contacts.message_count in the
-- transaction of every insert and delete, per statement over the
-- transition table. Installed, then backfilled, in this file's one
-- transaction (ALTER TABLE's lock is held until it commits), so no insert
-- between the two is lost.
CREATE OR REPLACE FUNCTION contacts_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		UPDATE organizations o SET contact_count = o.contact_count + n.n
		FROM (SELECT organization_id, count(*) AS n FROM counted_rows GROUP BY organization_id ORDER BY organization_id) n
		WHERE o.id = n.organization_id;
	ELSE
		UPDATE organizations o SET contact_count = o.contact_count - n.n
		FROM (SELECT organization_id, count(*) AS n FROM counted_rows GROUP BY organization_id ORDER BY organization_id) n
		WHERE o.id = n.organization_id;
	END IF;
	RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION messages_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		UPDATE contacts c SET message_count = c.message_count + n.n
		FROM (SELECT contact_id, count(*) AS n FROM counted_rows GROUP BY contact_id ORDER BY contact_id) n
		WHERE c.id = n.contact_id;
	ELSE
		UPDATE contacts c SET message_count = c.message_count - n.n
		FROM (SELECT contact_id, count(*) AS n FROM counted_rows GROUP BY contact_id ORDER BY contact_id) n
		WHERE c.id = n.contact_id;
	END IF;
	RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER contacts_counted_insert AFTER INSERT ON contacts
	REFERENCING NEW TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION contacts_counted();
CREATE OR REPLACE TRIGGER contacts_counted_delete AFTER DELETE ON contacts
	REFERENCING OLD TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION contacts_counted();
CREATE OR REPLACE TRIGGER messages_counted_insert AFTER INSERT ON messages
	REFERENCING NEW TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_counted();
CREATE OR REPLACE TRIGGER messages_counted_delete AFTER DELETE ON messages
	REFERENCING OLD TABLE AS counted_rows FOR EACH STATEMENT EXECUTE FUNCTION messages_counted();
UPDATE organizations o SET contact_count = n.n
FROM (SELECT organization_id, count(*) AS n FROM contacts GROUP BY organization_id) n WHERE o.id = n.organization_id;
UPDATE contacts c SET message_count = n.n
FROM (SELECT contact_id, count(*) AS n FROM messages GROUP BY contact_id) n WHERE c.id = n.contact_id;
-- The hand-written trigram indexes of the next migrations need it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
