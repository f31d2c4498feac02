-- create index "refreshtoken_expires_at" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_expires_at" ON "refresh_tokens" ("expires_at");
