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
