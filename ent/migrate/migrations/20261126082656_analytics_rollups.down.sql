-- reverse: create index "analyticsday_organization_id_day" to table: "analytics_days"
DROP INDEX "analyticsday_organization_id_day";
-- reverse: create "analytics_days" table
DROP TABLE "analytics_days";
-- reverse: create index "analyticsagentday_organization_id_day_agent_id_source" to table: "analytics_agent_days"
DROP INDEX "analyticsagentday_organization_id_day_agent_id_source";
-- reverse: create "analytics_agent_days" table
DROP TABLE "analytics_agent_days";
