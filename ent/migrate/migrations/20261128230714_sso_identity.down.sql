-- reverse: create index "ssoidentity_user_id" to table: "sso_identities"
DROP INDEX "ssoidentity_user_id";
-- reverse: create index "ssoidentity_sso_config_id_user_id" to table: "sso_identities"
DROP INDEX "ssoidentity_sso_config_id_user_id";
-- reverse: create index "ssoidentity_sso_config_id_issuer_subject" to table: "sso_identities"
DROP INDEX "ssoidentity_sso_config_id_issuer_subject";
-- reverse: create "sso_identities" table
DROP TABLE "sso_identities";
