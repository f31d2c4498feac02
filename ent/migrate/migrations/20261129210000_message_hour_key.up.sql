-- Issue 30 (database/searchindex.go): the function of the message search
-- index's hour lexeme (database.MessageHourKeyFunction).
CREATE OR REPLACE FUNCTION message_hour_key(org uuid, at timestamptz) RETURNS tsvector
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	AS $$ SELECT array_to_tsvector(ARRAY['#' || org::text || ':' || floor(extract(epoch FROM at) / 3600)::bigint::text]) $$;
