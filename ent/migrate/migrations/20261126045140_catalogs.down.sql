-- reverse: create index "product_provider_product_id" to table: "products"
DROP INDEX "product_provider_product_id";
-- reverse: create index "product_catalog_id_retailer_id" to table: "products"
DROP INDEX "product_catalog_id_retailer_id";
-- reverse: create index "catalog_provider_catalog_id" to table: "catalogs"
DROP INDEX "catalog_provider_catalog_id";
