-- modify "form_flows" table
ALTER TABLE "form_flows" ADD COLUMN "provider_json_sha256" character varying NOT NULL DEFAULT '';
-- create index "formflow_provider_flow_id" to table: "form_flows"
CREATE UNIQUE INDEX "formflow_provider_flow_id" ON "form_flows" ("provider_flow_id") WHERE ((provider_flow_id)::text <> ''::text);
