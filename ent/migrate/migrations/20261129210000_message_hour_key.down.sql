DROP FUNCTION IF EXISTS message_hour_key(uuid, timestamptz);
