-- create "business_account_holds" table
CREATE TABLE "business_account_holds" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "business_id" character varying NOT NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"));
-- create index "business_account_holds_business_id_key" to table: "business_account_holds"
CREATE UNIQUE INDEX "business_account_holds_business_id_key" ON "business_account_holds" ("business_id");
-- A business account id (an account's business_id) belongs to one
-- organization. Each id is given to the organization of its oldest
-- account; accounts of other organizations with that id are suspended,
-- and each is reported as a warning, which the server logs.
DO $$
DECLARE
  r record;
BEGIN
  INSERT INTO business_account_holds (id, created_at, updated_at, business_id, organization_id)
  SELECT DISTINCT ON (business_id) gen_random_uuid(), now(), now(), business_id, organization_id
  FROM accounts WHERE business_id <> ''
  ORDER BY business_id, created_at, id;
  FOR r IN
    SELECT a.id, a.organization_id, a.business_id, h.organization_id AS holder
    FROM accounts a JOIN business_account_holds h ON h.business_id = a.business_id
    WHERE a.organization_id <> h.organization_id
  LOOP
    UPDATE accounts SET status = 'suspended' WHERE id = r.id;
    RAISE WARNING 'account % of organization % suspended: its business_id % belongs to organization %',
      r.id, r.organization_id, r.business_id, r.holder;
  END LOOP;
END $$;
