-- Issue 30: call_log_organization_id_started_at_id (an earlier migration) serves what this index did;
-- this prefix of it only cost every write. Dropped CONCURRENTLY, alone in
-- its file, so no read or write of call_logs waits on the drop.
DROP INDEX CONCURRENTLY IF EXISTS "calllog_organization_id_started_at";
