-- Issue 30: the GIN indexes written at the ingest's rate keep a pending
-- list of at most 256 kB (database.shortPendingList): every scan of a GIN
-- index reads its pending list whole, and at the default 4 MB a search
-- beside the ingest paid about 3 ms a statement for it. Each ALTER
-- takes an ACCESS EXCLUSIVE lock on its index, for the catalog update
-- only; lock_timeout fails the migration rather than queue every write
-- behind a long transaction that holds the table (then force the
-- previous version and migrate again, as after a failed index build).
SET LOCAL lock_timeout = '10s';
ALTER INDEX "message_search" SET (gin_pending_list_limit = 256);
ALTER INDEX "contact_names_hours" SET (gin_pending_list_limit = 256);
ALTER INDEX "contact_phone_hours" SET (gin_pending_list_limit = 256);
ALTER INDEX "contact_tags" SET (gin_pending_list_limit = 256);
