-- Issue 30 (database/inboxindex.go): the trigrams of a contact's name and
-- profile name, one text (database.ContactNames), beside its organization
-- and inbox hour (database.ContactHourKey), replacing contact_name_trgm
-- and contact_profile_name_trgm (dropped by later migrations). Built
-- CONCURRENTLY so writes go on while it builds; CONCURRENTLY cannot run in
-- a transaction block, so this file holds this one statement. If the
-- build fails half-way the migration is dirty and an INVALID index is
-- left: DROP INDEX CONCURRENTLY contact_names_hours, force the previous
-- version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "contact_names_hours" ON "contacts" USING gin (((name || chr(31)) || profile_name) gin_trgm_ops, contact_hour_key(organization_id, last_message_at, created_at));
