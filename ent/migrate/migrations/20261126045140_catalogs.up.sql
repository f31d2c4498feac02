-- create index "catalog_provider_catalog_id" to table: "catalogs"
CREATE UNIQUE INDEX "catalog_provider_catalog_id" ON "catalogs" ("provider_catalog_id") WHERE ((provider_catalog_id)::text <> ''::text);
-- create index "product_catalog_id_retailer_id" to table: "products"
CREATE INDEX "product_catalog_id_retailer_id" ON "products" ("catalog_id", "retailer_id");
-- create index "product_provider_product_id" to table: "products"
CREATE UNIQUE INDEX "product_provider_product_id" ON "products" ("provider_product_id") WHERE ((provider_product_id)::text <> ''::text);
