-- reverse: create index "contactnote_organization_id" to table: "contact_notes"
DROP INDEX "contactnote_organization_id";
-- reverse: create index "contactnote_contact_id_created_at" to table: "contact_notes"
DROP INDEX "contactnote_contact_id_created_at";
-- reverse: create "contact_notes" table
DROP TABLE "contact_notes";
