DROP FUNCTION IF EXISTS contact_phone_hour_key(uuid, timestamptz, timestamptz);
