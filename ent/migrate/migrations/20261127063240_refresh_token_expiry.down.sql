-- reverse: create index "refreshtoken_expires_at" to table: "refresh_tokens"
DROP INDEX "refreshtoken_expires_at";
