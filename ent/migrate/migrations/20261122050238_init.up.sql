-- create "inbound_events" table
CREATE TABLE "inbound_events" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "organization_id" uuid NULL, "payload" bytea NOT NULL, "account_phone_id" character varying NOT NULL DEFAULT '', "status" character varying NOT NULL DEFAULT 'pending', "attempts" bigint NOT NULL DEFAULT 0, "error" character varying NOT NULL DEFAULT '', "dedupe_key" character varying NOT NULL, "processed_at" timestamptz NULL, PRIMARY KEY ("id"));
-- create index "inbound_events_dedupe_key_key" to table: "inbound_events"
CREATE UNIQUE INDEX "inbound_events_dedupe_key_key" ON "inbound_events" ("dedupe_key");
-- create index "inboundevent_account_phone_id" to table: "inbound_events"
CREATE INDEX "inboundevent_account_phone_id" ON "inbound_events" ("account_phone_id");
-- create index "inboundevent_status_created_at" to table: "inbound_events"
CREATE INDEX "inboundevent_status_created_at" ON "inbound_events" ("status", "created_at");
-- create "organizations" table
CREATE TABLE "organizations" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "slug" character varying NOT NULL, "mask_phone_numbers" boolean NOT NULL DEFAULT false, "timezone" character varying NOT NULL DEFAULT 'UTC', "date_format" character varying NOT NULL DEFAULT 'DD/MM/YYYY', "calling_enabled" boolean NOT NULL DEFAULT false, "max_call_duration" bigint NOT NULL DEFAULT 3600, "transfer_timeout_secs" bigint NOT NULL DEFAULT 120, "hold_music_file" character varying NOT NULL DEFAULT '', "ringback_file" character varying NOT NULL DEFAULT '', "allow_open_registration" boolean NOT NULL DEFAULT false, PRIMARY KEY ("id"));
-- create index "organizations_slug_key" to table: "organizations"
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations" ("slug");
-- create "refresh_tokens" table
CREATE TABLE "refresh_tokens" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" uuid NOT NULL, "organization_id" uuid NOT NULL, "family_id" uuid NOT NULL, "expires_at" timestamptz NOT NULL, "used_at" timestamptz NULL, "revoked_at" timestamptz NULL, PRIMARY KEY ("id"));
-- create index "refreshtoken_family_id" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_family_id" ON "refresh_tokens" ("family_id");
-- create index "refreshtoken_user_id" to table: "refresh_tokens"
CREATE INDEX "refreshtoken_user_id" ON "refresh_tokens" ("user_id");
-- create "accounts" table
CREATE TABLE "accounts" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "app_id" character varying NOT NULL DEFAULT '', "phone_id" character varying NOT NULL, "business_id" character varying NOT NULL, "webhook_verify_token" character varying NOT NULL DEFAULT '', "api_version" character varying NOT NULL DEFAULT 'v21.0', "is_default_incoming" boolean NOT NULL DEFAULT false, "is_default_outgoing" boolean NOT NULL DEFAULT false, "auto_read_receipt" boolean NOT NULL DEFAULT false, "business_calling_enabled" boolean NOT NULL DEFAULT false, "status" character varying NOT NULL DEFAULT 'active', "access_token_encrypted" bytea NULL, "app_secret_encrypted" bytea NULL, "messaging_limit_tier" character varying NOT NULL DEFAULT '', "created_by_id" uuid NULL, "updated_by_id" uuid NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "accounts_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "account_organization_id" to table: "accounts"
CREATE INDEX "account_organization_id" ON "accounts" ("organization_id");
-- create index "account_organization_id_name" to table: "accounts"
CREATE UNIQUE INDEX "account_organization_id_name" ON "accounts" ("organization_id", "name");
-- create index "account_phone_id" to table: "accounts"
CREATE INDEX "account_phone_id" ON "accounts" ("phone_id");
-- create index "account_webhook_verify_token" to table: "accounts"
CREATE INDEX "account_webhook_verify_token" ON "accounts" ("webhook_verify_token");
-- create "agent_breaks" table
CREATE TABLE "agent_breaks" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" uuid NOT NULL, "started_at" timestamptz NOT NULL, "ended_at" timestamptz NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "agent_breaks_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "agentbreak_organization_id" to table: "agent_breaks"
CREATE INDEX "agentbreak_organization_id" ON "agent_breaks" ("organization_id");
-- create index "agentbreak_organization_id_user_id_started_at" to table: "agent_breaks"
CREATE INDEX "agentbreak_organization_id_user_id_started_at" ON "agent_breaks" ("organization_id", "user_id", "started_at");
-- create "contacts" table
CREATE TABLE "contacts" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "phone_number" character varying NOT NULL, "name" character varying NOT NULL DEFAULT '', "profile_name" character varying NOT NULL DEFAULT '', "avatar_url" character varying NOT NULL DEFAULT '', "status" character varying NOT NULL DEFAULT 'active', "tags" jsonb NOT NULL, "metadata" jsonb NOT NULL, "last_message_at" timestamptz NULL, "last_message_preview" character varying NOT NULL DEFAULT '', "unread_count" bigint NOT NULL DEFAULT 0, "assigned_user_id" uuid NULL, "chat_account" character varying NOT NULL DEFAULT '', "last_inbound_at" timestamptz NULL, "marketing_opt_out" boolean NOT NULL DEFAULT false, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "contacts_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "contact_organization_id" to table: "contacts"
CREATE INDEX "contact_organization_id" ON "contacts" ("organization_id");
-- create index "contact_organization_id_assigned_user_id" to table: "contacts"
CREATE INDEX "contact_organization_id_assigned_user_id" ON "contacts" ("organization_id", "assigned_user_id");
-- create index "contact_organization_id_last_message_at" to table: "contacts"
CREATE INDEX "contact_organization_id_last_message_at" ON "contacts" ("organization_id", "last_message_at");
-- create index "contact_organization_id_phone_number" to table: "contacts"
CREATE UNIQUE INDEX "contact_organization_id_phone_number" ON "contacts" ("organization_id", "phone_number");
-- create "agent_transfers" table
CREATE TABLE "agent_transfers" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL DEFAULT '', "status" character varying NOT NULL DEFAULT 'active', "source" character varying NOT NULL DEFAULT 'manual', "agent_id" uuid NULL, "team_id" uuid NULL, "notes" character varying NOT NULL DEFAULT '', "transferred_at" timestamptz NOT NULL, "assigned_at" timestamptz NULL, "resumed_at" timestamptz NULL, "first_response_at" timestamptz NULL, "resumed_by_id" uuid NULL, "organization_id" uuid NOT NULL, "contact_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "agent_transfers_contacts_agent_transfers" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "agent_transfers_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "agenttransfer_contact_id_status" to table: "agent_transfers"
CREATE INDEX "agenttransfer_contact_id_status" ON "agent_transfers" ("contact_id", "status");
-- create index "agenttransfer_organization_id" to table: "agent_transfers"
CREATE INDEX "agenttransfer_organization_id" ON "agent_transfers" ("organization_id");
-- create index "agenttransfer_organization_id_agent_id_status" to table: "agent_transfers"
CREATE INDEX "agenttransfer_organization_id_agent_id_status" ON "agent_transfers" ("organization_id", "agent_id", "status");
-- create index "agenttransfer_organization_id_status_team_id" to table: "agent_transfers"
CREATE INDEX "agenttransfer_organization_id_status_team_id" ON "agent_transfers" ("organization_id", "status", "team_id");
-- create "ai_contexts" table
CREATE TABLE "ai_contexts" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "context_type" character varying NOT NULL DEFAULT 'static', "trigger_keywords" jsonb NOT NULL, "static_content" text NOT NULL DEFAULT '', "api_config" jsonb NULL, "enabled" boolean NOT NULL DEFAULT true, "priority" bigint NOT NULL DEFAULT 0, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "ai_contexts_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "aicontext_organization_id" to table: "ai_contexts"
CREATE INDEX "aicontext_organization_id" ON "ai_contexts" ("organization_id");
-- create index "aicontext_organization_id_priority" to table: "ai_contexts"
CREATE INDEX "aicontext_organization_id_priority" ON "ai_contexts" ("organization_id", "priority");
-- create "users" table
CREATE TABLE "users" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "email" character varying NOT NULL, "password_hash" character varying NULL, "full_name" character varying NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "is_available" boolean NOT NULL DEFAULT true, "is_super_admin" boolean NOT NULL DEFAULT false, "last_login_at" timestamptz NULL, PRIMARY KEY ("id"));
-- create index "users_email_key" to table: "users"
CREATE UNIQUE INDEX "users_email_key" ON "users" ("email");
-- create "api_keys" table
CREATE TABLE "api_keys" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "key_prefix" character varying NOT NULL, "key_hash" bytea NOT NULL, "last_used_at" timestamptz NULL, "expires_at" timestamptz NULL, "is_active" boolean NOT NULL DEFAULT true, "organization_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "api_keys_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "api_keys_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "api_keys_key_hash_key" to table: "api_keys"
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" ("key_hash");
-- create index "apikey_organization_id" to table: "api_keys"
CREATE INDEX "apikey_organization_id" ON "api_keys" ("organization_id");
-- create index "apikey_organization_id_created_at" to table: "api_keys"
CREATE INDEX "apikey_organization_id_created_at" ON "api_keys" ("organization_id", "created_at");
-- create "call_logs" table
CREATE TABLE "call_logs" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL DEFAULT '', "contact_id" uuid NULL, "chat_call_id" character varying NOT NULL, "caller_phone" character varying NOT NULL DEFAULT '', "direction" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'ringing', "duration" bigint NOT NULL DEFAULT 0, "ivr_flow_id" uuid NULL, "agent_id" uuid NULL, "started_at" timestamptz NOT NULL, "answered_at" timestamptz NULL, "ended_at" timestamptz NULL, "disconnected_by" character varying NOT NULL DEFAULT '', "recording_storage_key" character varying NOT NULL DEFAULT '', "recording_duration" bigint NOT NULL DEFAULT 0, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "call_logs_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "calllog_organization_id" to table: "call_logs"
CREATE INDEX "calllog_organization_id" ON "call_logs" ("organization_id");
-- create index "calllog_organization_id_agent_id" to table: "call_logs"
CREATE INDEX "calllog_organization_id_agent_id" ON "call_logs" ("organization_id", "agent_id");
-- create index "calllog_organization_id_chat_call_id" to table: "call_logs"
CREATE UNIQUE INDEX "calllog_organization_id_chat_call_id" ON "call_logs" ("organization_id", "chat_call_id");
-- create index "calllog_organization_id_started_at" to table: "call_logs"
CREATE INDEX "calllog_organization_id_started_at" ON "call_logs" ("organization_id", "started_at");
-- create "call_permissions" table
CREATE TABLE "call_permissions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "requested_at" timestamptz NOT NULL, "responded_at" timestamptz NULL, "expires_at" timestamptz NULL, "message_id" uuid NULL, "organization_id" uuid NOT NULL, "contact_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "call_permissions_contacts_call_permissions" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "call_permissions_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "callpermission_contact_id_chat_account" to table: "call_permissions"
CREATE INDEX "callpermission_contact_id_chat_account" ON "call_permissions" ("contact_id", "chat_account");
-- create index "callpermission_organization_id" to table: "call_permissions"
CREATE INDEX "callpermission_organization_id" ON "call_permissions" ("organization_id");
-- create "call_transfers" table
CREATE TABLE "call_transfers" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_call_id" character varying NOT NULL DEFAULT '', "caller_phone" character varying NOT NULL DEFAULT '', "contact_id" uuid NULL, "chat_account" character varying NOT NULL DEFAULT '', "status" character varying NOT NULL DEFAULT 'waiting', "team_id" uuid NULL, "agent_id" uuid NULL, "transferred_at" timestamptz NOT NULL, "connected_at" timestamptz NULL, "completed_at" timestamptz NULL, "hold_duration" bigint NOT NULL DEFAULT 0, "talk_duration" bigint NOT NULL DEFAULT 0, "call_log_id" uuid NOT NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "call_transfers_call_logs_transfers" FOREIGN KEY ("call_log_id") REFERENCES "call_logs" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "call_transfers_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "calltransfer_organization_id" to table: "call_transfers"
CREATE INDEX "calltransfer_organization_id" ON "call_transfers" ("organization_id");
-- create index "calltransfer_organization_id_status" to table: "call_transfers"
CREATE INDEX "calltransfer_organization_id_status" ON "call_transfers" ("organization_id", "status");
-- create "templates" table
CREATE TABLE "templates" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL, "provider_template_id" character varying NOT NULL DEFAULT '', "name" character varying NOT NULL, "display_name" character varying NOT NULL DEFAULT '', "language" character varying NOT NULL, "category" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'DRAFT', "header_type" character varying NOT NULL DEFAULT 'NONE', "header_content" character varying NOT NULL DEFAULT '', "body_content" character varying NOT NULL DEFAULT '', "footer_content" character varying NOT NULL DEFAULT '', "buttons" jsonb NOT NULL, "sample_values" jsonb NOT NULL, "add_security_recommendation" boolean NOT NULL DEFAULT false, "code_expiration_minutes" bigint NULL, "quality_rating" character varying NOT NULL DEFAULT 'UNKNOWN', "created_by_id" uuid NULL, "updated_by_id" uuid NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "templates_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "template_organization_id" to table: "templates"
CREATE INDEX "template_organization_id" ON "templates" ("organization_id");
-- create index "template_organization_id_category" to table: "templates"
CREATE INDEX "template_organization_id_category" ON "templates" ("organization_id", "category");
-- create index "template_organization_id_chat_account_name_language" to table: "templates"
CREATE UNIQUE INDEX "template_organization_id_chat_account_name_language" ON "templates" ("organization_id", "chat_account", "name", "language");
-- create index "template_organization_id_status" to table: "templates"
CREATE INDEX "template_organization_id_status" ON "templates" ("organization_id", "status");
-- create "campaigns" table
CREATE TABLE "campaigns" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "chat_account" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'draft', "total_recipients" bigint NOT NULL DEFAULT 0, "sent_count" bigint NOT NULL DEFAULT 0, "delivered_count" bigint NOT NULL DEFAULT 0, "read_count" bigint NOT NULL DEFAULT 0, "failed_count" bigint NOT NULL DEFAULT 0, "header_media_id" character varying NOT NULL DEFAULT '', "scheduled_at" timestamptz NULL, "started_at" timestamptz NULL, "completed_at" timestamptz NULL, "created_by_id" uuid NULL, "organization_id" uuid NOT NULL, "template_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "campaigns_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "campaigns_templates_campaigns" FOREIGN KEY ("template_id") REFERENCES "templates" ("id") ON UPDATE NO ACTION ON DELETE SET NULL);
-- create index "campaign_organization_id" to table: "campaigns"
CREATE INDEX "campaign_organization_id" ON "campaigns" ("organization_id");
-- create index "campaign_organization_id_created_at" to table: "campaigns"
CREATE INDEX "campaign_organization_id_created_at" ON "campaigns" ("organization_id", "created_at");
-- create index "campaign_organization_id_status" to table: "campaigns"
CREATE INDEX "campaign_organization_id_status" ON "campaigns" ("organization_id", "status");
-- create "campaign_recipients" table
CREATE TABLE "campaign_recipients" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "phone_number" character varying NOT NULL, "recipient_name" character varying NOT NULL DEFAULT '', "template_params" jsonb NOT NULL, "header_params" jsonb NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "message_id" uuid NULL, "chat_message_id" character varying NULL, "error_message" character varying NOT NULL DEFAULT '', "sent_at" timestamptz NULL, "delivered_at" timestamptz NULL, "read_at" timestamptz NULL, "campaign_id" uuid NOT NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "campaign_recipients_campaigns_recipients" FOREIGN KEY ("campaign_id") REFERENCES "campaigns" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "campaign_recipients_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "campaignrecipient_campaign_id_phone_number" to table: "campaign_recipients"
CREATE UNIQUE INDEX "campaignrecipient_campaign_id_phone_number" ON "campaign_recipients" ("campaign_id", "phone_number");
-- create index "campaignrecipient_campaign_id_status" to table: "campaign_recipients"
CREATE INDEX "campaignrecipient_campaign_id_status" ON "campaign_recipients" ("campaign_id", "status");
-- create index "campaignrecipient_chat_message_id" to table: "campaign_recipients"
CREATE INDEX "campaignrecipient_chat_message_id" ON "campaign_recipients" ("chat_message_id");
-- create index "campaignrecipient_organization_id" to table: "campaign_recipients"
CREATE INDEX "campaignrecipient_organization_id" ON "campaign_recipients" ("organization_id");
-- create "canned_responses" table
CREATE TABLE "canned_responses" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "shortcut" character varying NOT NULL DEFAULT '', "content" text NOT NULL, "category" character varying NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "usage_count" bigint NOT NULL DEFAULT 0, "buttons" jsonb NOT NULL, "created_by_id" uuid NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "canned_responses_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "cannedresponse_organization_id" to table: "canned_responses"
CREATE INDEX "cannedresponse_organization_id" ON "canned_responses" ("organization_id");
-- create index "cannedresponse_organization_id_category" to table: "canned_responses"
CREATE INDEX "cannedresponse_organization_id_category" ON "canned_responses" ("organization_id", "category");
-- create "catalogs" table
CREATE TABLE "catalogs" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "provider_catalog_id" character varying NOT NULL DEFAULT '', "chat_account" character varying NOT NULL, "name" character varying NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "catalogs_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "catalog_organization_id" to table: "catalogs"
CREATE INDEX "catalog_organization_id" ON "catalogs" ("organization_id");
-- create index "catalog_organization_id_chat_account" to table: "catalogs"
CREATE INDEX "catalog_organization_id_chat_account" ON "catalogs" ("organization_id", "chat_account");
-- create "chatbot_flows" table
CREATE TABLE "chatbot_flows" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', "trigger_keywords" jsonb NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "graph" jsonb NOT NULL, "chat_account" character varying NOT NULL DEFAULT '', "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "chatbot_flows_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "chatbotflow_organization_id" to table: "chatbot_flows"
CREATE INDEX "chatbotflow_organization_id" ON "chatbot_flows" ("organization_id");
-- create "chatbot_sessions" table
CREATE TABLE "chatbot_sessions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL DEFAULT '', "status" character varying NOT NULL DEFAULT 'active', "current_flow_id" uuid NULL, "current_step" character varying NOT NULL DEFAULT '', "variables" jsonb NOT NULL, "started_at" timestamptz NOT NULL, "last_activity" timestamptz NOT NULL, "completed_at" timestamptz NULL, "organization_id" uuid NOT NULL, "contact_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "chatbot_sessions_contacts_chatbot_sessions" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "chatbot_sessions_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "chatbotsession_contact_id_status" to table: "chatbot_sessions"
CREATE INDEX "chatbotsession_contact_id_status" ON "chatbot_sessions" ("contact_id", "status");
-- create index "chatbotsession_organization_id" to table: "chatbot_sessions"
CREATE INDEX "chatbotsession_organization_id" ON "chatbot_sessions" ("organization_id");
-- create index "chatbotsession_organization_id_status" to table: "chatbot_sessions"
CREATE INDEX "chatbotsession_organization_id_status" ON "chatbot_sessions" ("organization_id", "status");
-- create "chatbot_settings" table
CREATE TABLE "chatbot_settings" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "enabled" boolean NOT NULL DEFAULT false, "business_hours_enabled" boolean NOT NULL DEFAULT false, "allow_automated_outside_hours" boolean NOT NULL DEFAULT false, "allow_agent_queue_pickup" boolean NOT NULL DEFAULT true, "assign_to_same_agent" boolean NOT NULL DEFAULT true, "agent_current_conversation_only" boolean NOT NULL DEFAULT false, "ai_enabled" boolean NOT NULL DEFAULT false, "sla_enabled" boolean NOT NULL DEFAULT false, "client_reminder_enabled" boolean NOT NULL DEFAULT false, "greeting_message" character varying NOT NULL DEFAULT '', "fallback_message" character varying NOT NULL DEFAULT '', "out_of_hours_message" character varying NOT NULL DEFAULT '', "ai_provider" character varying NOT NULL DEFAULT '', "ai_model" character varying NOT NULL DEFAULT '', "ai_system_prompt" text NOT NULL DEFAULT '', "sla_auto_close_message" character varying NOT NULL DEFAULT '', "sla_warning_message" character varying NOT NULL DEFAULT '', "client_reminder_message" character varying NOT NULL DEFAULT '', "client_auto_close_message" character varying NOT NULL DEFAULT '', "greeting_buttons" jsonb NOT NULL, "fallback_buttons" jsonb NOT NULL, "business_hours" jsonb NOT NULL, "sla_escalation_notify_ids" jsonb NOT NULL, "session_timeout_minutes" bigint NOT NULL DEFAULT 30, "ai_max_tokens" bigint NOT NULL DEFAULT 500, "sla_response_minutes" bigint NOT NULL DEFAULT 15, "sla_resolution_minutes" bigint NOT NULL DEFAULT 60, "sla_escalation_minutes" bigint NOT NULL DEFAULT 30, "sla_auto_close_hours" bigint NOT NULL DEFAULT 24, "client_reminder_minutes" bigint NOT NULL DEFAULT 60, "client_auto_close_minutes" bigint NOT NULL DEFAULT 120, "ai_api_key_encrypted" bytea NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "chatbot_settings_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "chatbotsettings_organization_id" to table: "chatbot_settings"
CREATE INDEX "chatbotsettings_organization_id" ON "chatbot_settings" ("organization_id");
-- create index "chatbotsettings_organization_id_unique" to table: "chatbot_settings"
CREATE UNIQUE INDEX "chatbotsettings_organization_id_unique" ON "chatbot_settings" ("organization_id");
-- create "custom_actions" table
CREATE TABLE "custom_actions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "icon" character varying NOT NULL DEFAULT 'zap', "action_type" character varying NOT NULL, "config" jsonb NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "display_order" bigint NOT NULL DEFAULT 0, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "custom_actions_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "customaction_organization_id" to table: "custom_actions"
CREATE INDEX "customaction_organization_id" ON "custom_actions" ("organization_id");
-- create index "customaction_organization_id_display_order" to table: "custom_actions"
CREATE INDEX "customaction_organization_id_display_order" ON "custom_actions" ("organization_id", "display_order");
-- create "form_flows" table
CREATE TABLE "form_flows" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL, "provider_flow_id" character varying NOT NULL DEFAULT '', "name" character varying NOT NULL, "status" character varying NOT NULL DEFAULT 'DRAFT', "category" character varying NOT NULL DEFAULT '', "json_version" character varying NOT NULL DEFAULT '6.0', "flow_json" jsonb NOT NULL, "screens" jsonb NOT NULL, "preview_url" character varying NOT NULL DEFAULT '', "has_local_changes" boolean NOT NULL DEFAULT false, "deleted_at" timestamptz NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "form_flows_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "formflow_organization_id" to table: "form_flows"
CREATE INDEX "formflow_organization_id" ON "form_flows" ("organization_id");
-- create index "formflow_organization_id_chat_account" to table: "form_flows"
CREATE INDEX "formflow_organization_id_chat_account" ON "form_flows" ("organization_id", "chat_account");
-- create index "formflow_organization_id_status" to table: "form_flows"
CREATE INDEX "formflow_organization_id_status" ON "form_flows" ("organization_id", "status");
-- create "invitations" table
CREATE TABLE "invitations" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "email" character varying NOT NULL, "role_id" uuid NOT NULL, "invited_by_id" uuid NULL, "expires_at" timestamptz NOT NULL, "accepted_at" timestamptz NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "invitations_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "invitation_organization_id" to table: "invitations"
CREATE INDEX "invitation_organization_id" ON "invitations" ("organization_id");
-- create index "invitation_organization_id_email" to table: "invitations"
CREATE UNIQUE INDEX "invitation_organization_id_email" ON "invitations" ("organization_id", "email");
-- create "ivr_flows" table
CREATE TABLE "ivr_flows" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "chat_account" character varying NOT NULL, "name" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "is_call_start" boolean NOT NULL DEFAULT false, "is_outgoing_end" boolean NOT NULL DEFAULT false, "menu" jsonb NOT NULL, "welcome_audio_url" character varying NOT NULL DEFAULT '', "created_by_id" uuid NULL, "updated_by_id" uuid NULL, "deleted_at" timestamptz NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "ivr_flows_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "ivrflow_organization_id" to table: "ivr_flows"
CREATE INDEX "ivrflow_organization_id" ON "ivr_flows" ("organization_id");
-- create index "ivrflow_organization_id_chat_account" to table: "ivr_flows"
CREATE INDEX "ivrflow_organization_id_chat_account" ON "ivr_flows" ("organization_id", "chat_account");
-- create "keyword_rules" table
CREATE TABLE "keyword_rules" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "keywords" jsonb NOT NULL, "match_type" character varying NOT NULL, "response_type" character varying NOT NULL DEFAULT 'text', "response_content" jsonb NOT NULL, "priority" bigint NOT NULL DEFAULT 0, "enabled" boolean NOT NULL DEFAULT true, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "keyword_rules_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "keywordrule_organization_id" to table: "keyword_rules"
CREATE INDEX "keywordrule_organization_id" ON "keyword_rules" ("organization_id");
-- create index "keywordrule_organization_id_priority" to table: "keyword_rules"
CREATE INDEX "keywordrule_organization_id_priority" ON "keyword_rules" ("organization_id", "priority");
-- create "messages" table
CREATE TABLE "messages" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "direction" character varying NOT NULL, "message_type" character varying NOT NULL DEFAULT 'text', "content" jsonb NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "chat_message_id" character varying NULL, "chat_account" character varying NOT NULL DEFAULT '', "media_url" character varying NOT NULL DEFAULT '', "media_mime_type" character varying NOT NULL DEFAULT '', "media_filename" character varying NOT NULL DEFAULT '', "interactive_data" jsonb NULL, "error_message" character varying NOT NULL DEFAULT '', "sent_by_user_id" uuid NULL, "platform_timestamp" timestamptz NULL, "reply_to_id" uuid NULL, "contact_id" uuid NOT NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "messages_contacts_messages" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "messages_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "message_contact_id_created_at_id" to table: "messages"
CREATE INDEX "message_contact_id_created_at_id" ON "messages" ("contact_id", "created_at", "id");
-- create index "message_organization_id" to table: "messages"
CREATE INDEX "message_organization_id" ON "messages" ("organization_id");
-- create index "message_organization_id_created_at" to table: "messages"
CREATE INDEX "message_organization_id_created_at" ON "messages" ("organization_id", "created_at");
-- create index "messages_chat_message_id_key" to table: "messages"
CREATE UNIQUE INDEX "messages_chat_message_id_key" ON "messages" ("chat_message_id");
-- create "roles" table
CREATE TABLE "roles" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', "is_system" boolean NOT NULL DEFAULT false, "is_default" boolean NOT NULL DEFAULT false, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "roles_organizations_roles" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "role_organization_id" to table: "roles"
CREATE INDEX "role_organization_id" ON "roles" ("organization_id");
-- create index "role_organization_id_name" to table: "roles"
CREATE UNIQUE INDEX "role_organization_id_name" ON "roles" ("organization_id", "name");
-- create "organization_members" table
CREATE TABLE "organization_members" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "is_default" boolean NOT NULL DEFAULT false, "organization_id" uuid NOT NULL, "role_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "organization_members_organizations_members" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "organization_members_roles_role" FOREIGN KEY ("role_id") REFERENCES "roles" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "organization_members_users_memberships" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "organizationmember_organization_id" to table: "organization_members"
CREATE INDEX "organizationmember_organization_id" ON "organization_members" ("organization_id");
-- create index "organizationmember_organization_id_user_id" to table: "organization_members"
CREATE UNIQUE INDEX "organizationmember_organization_id_user_id" ON "organization_members" ("organization_id", "user_id");
-- create index "organizationmember_role_id" to table: "organization_members"
CREATE INDEX "organizationmember_role_id" ON "organization_members" ("role_id");
-- create index "organizationmember_user_id" to table: "organization_members"
CREATE INDEX "organizationmember_user_id" ON "organization_members" ("user_id");
-- create "products" table
CREATE TABLE "products" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "provider_product_id" character varying NOT NULL DEFAULT '', "name" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', "price" bigint NOT NULL, "currency" character varying NOT NULL DEFAULT 'USD', "url" character varying NOT NULL DEFAULT '', "image_url" character varying NOT NULL DEFAULT '', "retailer_id" character varying NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "catalog_id" uuid NOT NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "products_catalogs_products" FOREIGN KEY ("catalog_id") REFERENCES "catalogs" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "products_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "product_organization_id" to table: "products"
CREATE INDEX "product_organization_id" ON "products" ("organization_id");
-- create "permissions" table
CREATE TABLE "permissions" ("id" uuid NOT NULL, "resource" character varying NOT NULL, "action" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', PRIMARY KEY ("id"));
-- create index "permission_resource_action" to table: "permissions"
CREATE UNIQUE INDEX "permission_resource_action" ON "permissions" ("resource", "action");
-- create "role_permissions" table
CREATE TABLE "role_permissions" ("role_id" uuid NOT NULL, "permission_id" uuid NOT NULL, PRIMARY KEY ("role_id", "permission_id"), CONSTRAINT "role_permissions_permission_id" FOREIGN KEY ("permission_id") REFERENCES "permissions" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "role_permissions_role_id" FOREIGN KEY ("role_id") REFERENCES "roles" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- create "sso_configs" table
CREATE TABLE "sso_configs" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "provider" character varying NOT NULL, "client_id" character varying NOT NULL, "client_secret_encrypted" bytea NULL, "is_enabled" boolean NOT NULL DEFAULT false, "allow_auto_create" boolean NOT NULL DEFAULT false, "default_role" character varying NOT NULL DEFAULT 'agent', "allowed_domains" character varying NOT NULL DEFAULT '', "auth_url" character varying NOT NULL DEFAULT '', "token_url" character varying NOT NULL DEFAULT '', "user_info_url" character varying NOT NULL DEFAULT '', "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "sso_configs_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "ssoconfig_organization_id" to table: "sso_configs"
CREATE INDEX "ssoconfig_organization_id" ON "sso_configs" ("organization_id");
-- create index "ssoconfig_organization_id_provider" to table: "sso_configs"
CREATE UNIQUE INDEX "ssoconfig_organization_id_provider" ON "sso_configs" ("organization_id", "provider");
-- create "teams" table
CREATE TABLE "teams" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "description" character varying NOT NULL DEFAULT '', "assignment_strategy" character varying NOT NULL DEFAULT 'round_robin', "per_agent_timeout_secs" bigint NOT NULL DEFAULT 120, "is_active" boolean NOT NULL DEFAULT true, "organization_id" uuid NOT NULL, "created_by_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "teams_organizations_teams" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "teams_users_created_by" FOREIGN KEY ("created_by_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE SET NULL);
-- create index "team_organization_id" to table: "teams"
CREATE INDEX "team_organization_id" ON "teams" ("organization_id");
-- create index "team_organization_id_name" to table: "teams"
CREATE UNIQUE INDEX "team_organization_id_name" ON "teams" ("organization_id", "name");
-- create "team_members" table
CREATE TABLE "team_members" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "role" character varying NOT NULL DEFAULT 'agent', "last_assigned_at" timestamptz NULL, "team_id" uuid NOT NULL, "organization_id" uuid NOT NULL, "user_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "team_members_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "team_members_teams_members" FOREIGN KEY ("team_id") REFERENCES "teams" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "team_members_users_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "teammember_organization_id" to table: "team_members"
CREATE INDEX "teammember_organization_id" ON "team_members" ("organization_id");
-- create index "teammember_team_id_user_id" to table: "team_members"
CREATE UNIQUE INDEX "teammember_team_id_user_id" ON "team_members" ("team_id", "user_id");
-- create index "teammember_user_id" to table: "team_members"
CREATE INDEX "teammember_user_id" ON "team_members" ("user_id");
-- create "webhook_subscriptions" table
CREATE TABLE "webhook_subscriptions" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "url" character varying NOT NULL, "events" jsonb NOT NULL, "headers" jsonb NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "secret_encrypted" bytea NULL, "created_by_id" uuid NULL, "disabled_reason" character varying NOT NULL DEFAULT '', "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_subscriptions_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "webhooksubscription_organization_id" to table: "webhook_subscriptions"
CREATE INDEX "webhooksubscription_organization_id" ON "webhook_subscriptions" ("organization_id");
-- create index "webhooksubscription_organization_id_is_active" to table: "webhook_subscriptions"
CREATE INDEX "webhooksubscription_organization_id_is_active" ON "webhook_subscriptions" ("organization_id", "is_active");
-- create "webhook_deliveries" table
CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "event_id" uuid NOT NULL, "event" character varying NOT NULL, "payload" bytea NOT NULL, "status" character varying NOT NULL DEFAULT 'pending', "attempts" bigint NOT NULL DEFAULT 0, "next_attempt_at" timestamptz NULL, "last_status_code" bigint NULL, "last_error" character varying NOT NULL DEFAULT '', "completed_at" timestamptz NULL, "organization_id" uuid NOT NULL, "subscription_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_deliveries_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "webhook_deliveries_webhook_subscriptions_deliveries" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- create index "webhookdelivery_organization_id" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_organization_id" ON "webhook_deliveries" ("organization_id");
-- create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_status_next_attempt_at" ON "webhook_deliveries" ("status", "next_attempt_at");
-- create index "webhookdelivery_subscription_id_created_at" to table: "webhook_deliveries"
CREATE INDEX "webhookdelivery_subscription_id_created_at" ON "webhook_deliveries" ("subscription_id", "created_at");
-- create "webhook_delivery_attempts" table
CREATE TABLE "webhook_delivery_attempts" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "attempt" bigint NOT NULL, "status_code" bigint NOT NULL DEFAULT 0, "duration_ms" bigint NOT NULL DEFAULT 0, "error" character varying NOT NULL DEFAULT '', "delivery_id" uuid NOT NULL, "organization_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "webhook_delivery_attempts_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "webhook_delivery_attempts_webhook_deliveries_delivery_attempts" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id") ON UPDATE NO ACTION ON DELETE CASCADE);
-- create index "webhookdeliveryattempt_organization_id" to table: "webhook_delivery_attempts"
CREATE INDEX "webhookdeliveryattempt_organization_id" ON "webhook_delivery_attempts" ("organization_id");
