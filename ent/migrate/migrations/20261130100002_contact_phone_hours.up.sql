-- Issue 30 (database/inboxindex.go): the trigrams of phone_number beside
-- each contact's organization and inbox hour in the phone index's own
-- keys (database.ContactPhoneHourKey), replacing contact_phone_number_hours
-- (dropped by the next migration). Built CONCURRENTLY so writes go on
-- while it builds; CONCURRENTLY cannot run in a transaction block, so
-- this file holds this one statement. If the build fails half-way the
-- migration is dirty and an INVALID index is left: DROP INDEX
-- CONCURRENTLY contact_phone_hours, force the previous version and
-- migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "contact_phone_hours" ON "contacts" USING gin ("phone_number" gin_trgm_ops, contact_phone_hour_key(organization_id, last_message_at, created_at));
