-- create "sso_identities" table
CREATE TABLE "sso_identities" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "provider" character varying NOT NULL, "issuer" character varying NOT NULL, "subject" character varying NOT NULL, "email" character varying NOT NULL DEFAULT '', "last_login_at" timestamptz NULL, "sso_config_id" uuid NOT NULL, "organization_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "sso_identities_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "sso_identities_sso_configs_identities" FOREIGN KEY ("sso_config_id") REFERENCES "sso_configs" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "sso_identities_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "ssoidentity_sso_config_id_issuer_subject" to table: "sso_identities"
CREATE UNIQUE INDEX "ssoidentity_sso_config_id_issuer_subject" ON "sso_identities" ("sso_config_id", "issuer", "subject");
-- create index "ssoidentity_sso_config_id_user_id" to table: "sso_identities"
CREATE UNIQUE INDEX "ssoidentity_sso_config_id_user_id" ON "sso_identities" ("sso_config_id", "user_id");
-- create index "ssoidentity_user_id" to table: "sso_identities"
CREATE INDEX "ssoidentity_user_id" ON "sso_identities" ("user_id");
