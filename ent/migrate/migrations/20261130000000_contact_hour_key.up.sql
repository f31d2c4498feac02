-- Issue 30 (database/inboxindex.go): the function of the contacts'
-- search indexes' second column (database.ContactHourKeyFunction).
CREATE OR REPLACE FUNCTION contact_hour_key(org uuid, last_message_at timestamptz, created_at timestamptz) RETURNS text[]
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$ SELECT ARRAY['#' || org::text || ':' || CASE WHEN last_message_at IS NULL
		THEN 'c' || floor(extract(epoch FROM created_at) / 3600)::bigint::text
		ELSE floor(extract(epoch FROM last_message_at) / 3600)::bigint::text END] $$;
