-- Issue 30 (database/tagorder.go): fills the tag order from the contacts
-- the previous migration's triggers did not see, in batches of 5,000
-- contacts in id order, each committed on its own (this file is one
-- statement, so it runs outside a transaction block and the DO block may
-- COMMIT). A batch reads its tagged contacts FOR SHARE: a contact changed
-- since the batch began is read as it is now, and one changed after waits
-- for the batch's commit, then its trigger replaces what the batch wrote.
-- Writes to other contacts never wait; a write to one of the batch's
-- waits for a few milliseconds at most. Entries the triggers already
-- wrote are left as they are (ON CONFLICT DO NOTHING). Run again after a
-- failure, it fills what is missing.
DO $$
DECLARE
	after uuid := '00000000-0000-0000-0000-000000000000';
	last uuid;
BEGIN
	LOOP
		SELECT id INTO last FROM (SELECT id FROM contacts WHERE id > after ORDER BY id LIMIT 5000) b ORDER BY id DESC LIMIT 1;
		EXIT WHEN last IS NULL;
		INSERT INTO contact_tag_order (contact_id, tag, organization_id, last_message_at, created_at)
		SELECT DISTINCT c.id, t.tag, c.organization_id, c.last_message_at, c.created_at
		FROM (SELECT id, tags, organization_id, last_message_at, created_at FROM contacts
			WHERE id > after AND id <= last AND tags <> '[]'::jsonb FOR SHARE) c
		CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(c.tags) = 'array' THEN c.tags ELSE '[]'::jsonb END) AS t(tag)
		ON CONFLICT DO NOTHING;
		COMMIT;
		after := last;
	END LOOP;
END $$;
