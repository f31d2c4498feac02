-- Issue 30: agent_transfer_organization_id_transferred_at_id (an earlier migration) serves what this index did;
-- this prefix of it only cost every write. Dropped CONCURRENTLY, alone in
-- its file, so no read or write of agent_transfers waits on the drop.
DROP INDEX CONCURRENTLY IF EXISTS "agenttransfer_organization_id_transferred_at";
