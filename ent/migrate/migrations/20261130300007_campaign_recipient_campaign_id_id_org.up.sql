-- Issue 30 (database/listindex.go): a campaign's recipients in import order
-- with the organization included for the tenant's filter, so that a deep
-- page's ids are read from the index alone (database.PageAt). Built
-- CONCURRENTLY so writes go on while it builds; CONCURRENTLY cannot run in
-- a transaction block, so this file holds this one statement (golang-migrate
-- sends a file as one simple query; a single statement runs outside any
-- transaction). If the build fails half-way the migration is dirty and an
-- INVALID index is left: DROP INDEX CONCURRENTLY campaign_recipient_campaign_id_id_org, force the
-- previous version and migrate again (docs/development.md).
CREATE INDEX CONCURRENTLY "campaign_recipient_campaign_id_id_org" ON "campaign_recipients" ("campaign_id", "id") INCLUDE ("organization_id");
