-- reverse: create index "analyticsday_organization_id_day" to table: "analytics_days"
DROP INDEX "analyticsday_organization_id_day";
-- reverse: create "analytics_days" table
DROP TABLE "analytics_days";
-- reverse: create index "analyticsagentday_organization_id_day_agent_id_source" to table: "analytics_agent_days"
DROP INDEX "analyticsagentday_organization_id_day_agent_id_source";
-- reverse: create "analytics_agent_days" table
DROP TABLE "analytics_agent_days";
-- reverse: create index "message_agent_sent" to table: "messages"
DROP INDEX "message_agent_sent";
-- reverse: drop index "message_organization_id_sent_by_user_id_created_at" from table: "messages"
CREATE INDEX "message_organization_id_sent_by_user_id_created_at" ON "messages" ("organization_id", "sent_by_user_id", "created_at") WHERE (sent_by_user_id IS NOT NULL);
