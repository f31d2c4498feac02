-- One statement, outside a transaction (see the up migration).
DROP INDEX CONCURRENTLY IF EXISTS "message_contact_id_chat_account_created_at";
