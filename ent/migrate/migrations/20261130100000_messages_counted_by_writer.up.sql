-- Issue 30 (database/counters.go, MessagesCounted): the messages' insert
-- trigger does not count the messages of a statement run with the
-- transaction-local setting switchboard.messages_counted on; the ingest
-- counts them in its upsert of their contacts, so that each contact a
-- batch writes is written once, not twice.
CREATE OR REPLACE FUNCTION messages_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF current_setting('switchboard.messages_counted', true) = 'on' THEN
			RETURN NULL;
		END IF;
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
