-- reverse: create index "tag_organization_id_name" to table: "tags"
DROP INDEX "tag_organization_id_name";
-- reverse: create "tags" table
DROP TABLE "tags";
