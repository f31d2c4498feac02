-- drop index "message_organization_id_sent_by_user_id_created_at" from table: "messages"
DROP INDEX "message_organization_id_sent_by_user_id_created_at";
-- create index "message_agent_sent" to table: "messages"
CREATE INDEX "message_agent_sent" ON "messages" ("organization_id", "created_at", "sent_by_user_id") WHERE ((sent_by_user_id IS NOT NULL) AND ((direction)::text = 'outgoing'::text));
-- create "analytics_agent_days" table
CREATE TABLE "analytics_agent_days" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "day" timestamptz NOT NULL, "agent_id" uuid NOT NULL, "source" character varying NOT NULL DEFAULT '', "transfers" bigint NOT NULL DEFAULT 0, "handled" bigint NOT NULL DEFAULT 0, "queue_us" bigint NOT NULL DEFAULT 0, "queue_n" bigint NOT NULL DEFAULT 0, "first_response_us" bigint NOT NULL DEFAULT 0, "first_response_n" bigint NOT NULL DEFAULT 0, "resolution_us" bigint NOT NULL DEFAULT 0, "resolution_n" bigint NOT NULL DEFAULT 0, "messages_sent" bigint NOT NULL DEFAULT 0, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "analytics_agent_days_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "analyticsagentday_organization_id_day_agent_id_source" to table: "analytics_agent_days"
CREATE UNIQUE INDEX "analyticsagentday_organization_id_day_agent_id_source" ON "analytics_agent_days" ("organization_id", "day", "agent_id", "source");
-- create "analytics_days" table
CREATE TABLE "analytics_days" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "day" timestamptz NOT NULL, "version" bigint NOT NULL DEFAULT 0, "built_version" bigint NULL, "built_at" timestamptz NULL, "messages" bigint NOT NULL DEFAULT 0, "contacts" bigint NOT NULL DEFAULT 0, "chatbot_sessions" bigint NOT NULL DEFAULT 0, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "analytics_days_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "analyticsday_organization_id_day" to table: "analytics_days"
CREATE UNIQUE INDEX "analyticsday_organization_id_day" ON "analytics_days" ("organization_id", "day");
