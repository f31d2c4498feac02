-- Issue 30 (database/inboxindex.go, ContactPhoneHourKey): the phone
-- number's search index gets hour keys of its own, so that a name search
-- can read a range of hours only through the names index.
CREATE OR REPLACE FUNCTION contact_phone_hour_key(org uuid, last_message_at timestamptz, created_at timestamptz) RETURNS text[]
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$ SELECT ARRAY['#' || org::text || ':p' || CASE WHEN last_message_at IS NULL
		THEN 'c' || floor(extract(epoch FROM created_at) / 3600)::bigint::text
		ELSE floor(extract(epoch FROM last_message_at) / 3600)::bigint::text END] $$;
