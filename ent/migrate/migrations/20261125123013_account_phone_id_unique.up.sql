-- drop index "account_phone_id" from table: "accounts"
DROP INDEX "account_phone_id";
-- modify "accounts" table
ALTER TABLE "accounts" ADD COLUMN "held_phone_id" character varying NULL;
-- A phone number id belongs to one account of one organization. Where
-- several accounts share one, the oldest keeps it; the others are
-- suspended and hold none (held_phone_id stays NULL), and each is reported
-- as a warning, which the server logs.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT id, organization_id, phone_id, holder FROM (
      SELECT id, organization_id, phone_id,
             first_value(id) OVER w AS holder,
             row_number() OVER w AS rank
      FROM accounts
      WINDOW w AS (PARTITION BY phone_id ORDER BY created_at, id)
    ) ranked WHERE rank > 1
  LOOP
    UPDATE accounts SET status = 'suspended' WHERE id = r.id;
    RAISE WARNING 'account % of organization % suspended: its phone_id % is held by the older account %',
      r.id, r.organization_id, r.phone_id, r.holder;
  END LOOP;
  UPDATE accounts SET held_phone_id = phone_id
  WHERE id IN (SELECT DISTINCT ON (phone_id) id FROM accounts ORDER BY phone_id, created_at, id);
END $$;
-- create index "account_held_phone_id" to table: "accounts"
CREATE UNIQUE INDEX "account_held_phone_id" ON "accounts" ("held_phone_id");
