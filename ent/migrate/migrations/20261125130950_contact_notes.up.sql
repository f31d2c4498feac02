-- create "contact_notes" table
CREATE TABLE "contact_notes" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "content" text NOT NULL, "contact_id" uuid NOT NULL, "organization_id" uuid NOT NULL, "author_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "contact_notes_contacts_notes" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "contact_notes_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "contact_notes_users_author" FOREIGN KEY ("author_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE SET NULL);
-- create index "contactnote_contact_id_created_at" to table: "contact_notes"
CREATE INDEX "contactnote_contact_id_created_at" ON "contact_notes" ("contact_id", "created_at");
-- create index "contactnote_organization_id" to table: "contact_notes"
CREATE INDEX "contactnote_organization_id" ON "contact_notes" ("organization_id");
