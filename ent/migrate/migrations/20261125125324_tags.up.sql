-- create "tags" table
CREATE TABLE "tags" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "color" character varying NOT NULL DEFAULT 'gray', "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "tags_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "tag_organization_id_name" to table: "tags"
CREATE UNIQUE INDEX "tag_organization_id_name" ON "tags" ("organization_id", "name");
