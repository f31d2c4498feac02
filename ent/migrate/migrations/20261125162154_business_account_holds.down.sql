-- reverse: create index "business_account_holds_business_id_key" to table: "business_account_holds"
DROP INDEX "business_account_holds_business_id_key";
-- reverse: create "business_account_holds" table
DROP TABLE "business_account_holds";
