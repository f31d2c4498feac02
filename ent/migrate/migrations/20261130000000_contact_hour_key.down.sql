DROP FUNCTION IF EXISTS contact_hour_key(uuid, timestamptz, timestamptz);
