-- reverse: create index "formflow_provider_flow_id" to table: "form_flows"
DROP INDEX "formflow_provider_flow_id";
-- reverse: modify "form_flows" table
ALTER TABLE "form_flows" DROP COLUMN "provider_json_sha256";
