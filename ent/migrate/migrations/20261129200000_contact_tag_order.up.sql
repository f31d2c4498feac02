-- Issue 30 (database/tagorder.go): the tag order, the table a tag
-- filter's page of contacts is read from on PostgreSQL, its index, and the
-- triggers that keep it in the transaction of every write to contacts.
-- The table is new and empty: this file's transaction holds contacts'
-- lock (CREATE TRIGGER, the foreign key) only for a moment. The next
-- migration fills it from the contacts already there.
CREATE TABLE IF NOT EXISTS contact_tag_order (
	contact_id uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
	tag text NOT NULL,
	organization_id uuid NOT NULL,
	last_message_at timestamptz NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (contact_id, tag)
);
CREATE INDEX IF NOT EXISTS contact_tag_order_inbox ON contact_tag_order
	(organization_id, tag, last_message_at DESC NULLS LAST, created_at DESC, contact_id);
CREATE OR REPLACE FUNCTION contact_tags_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO contact_tag_order (contact_id, tag, organization_id, last_message_at, created_at)
	SELECT DISTINCT n.id, t.tag, n.organization_id, n.last_message_at, n.created_at
	FROM inserted_contacts n
	CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(n.tags) = 'array' THEN n.tags ELSE '[]'::jsonb END) AS t(tag)
	ORDER BY 1, 2;
	RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION contact_tags_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.tags IS DISTINCT FROM NEW.tags THEN
		DELETE FROM contact_tag_order WHERE contact_id = OLD.id;
		INSERT INTO contact_tag_order (contact_id, tag, organization_id, last_message_at, created_at)
		SELECT DISTINCT NEW.id, t.tag, NEW.organization_id, NEW.last_message_at, NEW.created_at
		FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(NEW.tags) = 'array' THEN NEW.tags ELSE '[]'::jsonb END) AS t(tag);
	ELSE
		UPDATE contact_tag_order SET last_message_at = NEW.last_message_at WHERE contact_id = NEW.id;
	END IF;
	RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER contact_tags_inserted AFTER INSERT ON contacts
	REFERENCING NEW TABLE AS inserted_contacts FOR EACH STATEMENT EXECUTE FUNCTION contact_tags_inserted();
CREATE OR REPLACE TRIGGER contact_tags_updated AFTER UPDATE OF tags, last_message_at ON contacts FOR EACH ROW
	WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR (OLD.last_message_at IS DISTINCT FROM NEW.last_message_at AND NEW.tags <> '[]'::jsonb))
	EXECUTE FUNCTION contact_tags_updated();
