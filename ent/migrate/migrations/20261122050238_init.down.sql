-- reverse: create index "webhookdeliveryattempt_organization_id" to table: "webhook_delivery_attempts"
DROP INDEX "webhookdeliveryattempt_organization_id";
-- reverse: create "webhook_delivery_attempts" table
DROP TABLE "webhook_delivery_attempts";
-- reverse: create index "webhookdelivery_subscription_id_created_at" to table: "webhook_deliveries"
DROP INDEX "webhookdelivery_subscription_id_created_at";
-- reverse: create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
DROP INDEX "webhookdelivery_status_next_attempt_at";
-- reverse: create index "webhookdelivery_organization_id" to table: "webhook_deliveries"
DROP INDEX "webhookdelivery_organization_id";
-- reverse: create "webhook_deliveries" table
DROP TABLE "webhook_deliveries";
-- reverse: create index "webhooksubscription_organization_id_is_active" to table: "webhook_subscriptions"
DROP INDEX "webhooksubscription_organization_id_is_active";
-- reverse: create index "webhooksubscription_organization_id" to table: "webhook_subscriptions"
DROP INDEX "webhooksubscription_organization_id";
-- reverse: create "webhook_subscriptions" table
DROP TABLE "webhook_subscriptions";
-- reverse: create index "teammember_user_id" to table: "team_members"
DROP INDEX "teammember_user_id";
-- reverse: create index "teammember_team_id_user_id" to table: "team_members"
DROP INDEX "teammember_team_id_user_id";
-- reverse: create index "teammember_organization_id" to table: "team_members"
DROP INDEX "teammember_organization_id";
-- reverse: create "team_members" table
DROP TABLE "team_members";
-- reverse: create index "team_organization_id_name" to table: "teams"
DROP INDEX "team_organization_id_name";
-- reverse: create index "team_organization_id" to table: "teams"
DROP INDEX "team_organization_id";
-- reverse: create "teams" table
DROP TABLE "teams";
-- reverse: create index "ssoconfig_organization_id_provider" to table: "sso_configs"
DROP INDEX "ssoconfig_organization_id_provider";
-- reverse: create index "ssoconfig_organization_id" to table: "sso_configs"
DROP INDEX "ssoconfig_organization_id";
-- reverse: create "sso_configs" table
DROP TABLE "sso_configs";
-- reverse: create "role_permissions" table
DROP TABLE "role_permissions";
-- reverse: create index "permission_resource_action" to table: "permissions"
DROP INDEX "permission_resource_action";
-- reverse: create "permissions" table
DROP TABLE "permissions";
-- reverse: create index "product_organization_id" to table: "products"
DROP INDEX "product_organization_id";
-- reverse: create "products" table
DROP TABLE "products";
-- reverse: create index "organizationmember_user_id" to table: "organization_members"
DROP INDEX "organizationmember_user_id";
-- reverse: create index "organizationmember_role_id" to table: "organization_members"
DROP INDEX "organizationmember_role_id";
-- reverse: create index "organizationmember_organization_id_user_id" to table: "organization_members"
DROP INDEX "organizationmember_organization_id_user_id";
-- reverse: create index "organizationmember_organization_id" to table: "organization_members"
DROP INDEX "organizationmember_organization_id";
-- reverse: create "organization_members" table
DROP TABLE "organization_members";
-- reverse: create index "role_organization_id_name" to table: "roles"
DROP INDEX "role_organization_id_name";
-- reverse: create index "role_organization_id" to table: "roles"
DROP INDEX "role_organization_id";
-- reverse: create "roles" table
DROP TABLE "roles";
-- reverse: create index "messages_chat_message_id_key" to table: "messages"
DROP INDEX "messages_chat_message_id_key";
-- reverse: create index "message_organization_id_created_at" to table: "messages"
DROP INDEX "message_organization_id_created_at";
-- reverse: create index "message_organization_id" to table: "messages"
DROP INDEX "message_organization_id";
-- reverse: create index "message_contact_id_created_at_id" to table: "messages"
DROP INDEX "message_contact_id_created_at_id";
-- reverse: create "messages" table
DROP TABLE "messages";
-- reverse: create index "keywordrule_organization_id_priority" to table: "keyword_rules"
DROP INDEX "keywordrule_organization_id_priority";
-- reverse: create index "keywordrule_organization_id" to table: "keyword_rules"
DROP INDEX "keywordrule_organization_id";
-- reverse: create "keyword_rules" table
DROP TABLE "keyword_rules";
-- reverse: create index "ivrflow_organization_id_chat_account" to table: "ivr_flows"
DROP INDEX "ivrflow_organization_id_chat_account";
-- reverse: create index "ivrflow_organization_id" to table: "ivr_flows"
DROP INDEX "ivrflow_organization_id";
-- reverse: create "ivr_flows" table
DROP TABLE "ivr_flows";
-- reverse: create index "invitation_organization_id_email" to table: "invitations"
DROP INDEX "invitation_organization_id_email";
-- reverse: create index "invitation_organization_id" to table: "invitations"
DROP INDEX "invitation_organization_id";
-- reverse: create "invitations" table
DROP TABLE "invitations";
-- reverse: create index "formflow_organization_id_status" to table: "form_flows"
DROP INDEX "formflow_organization_id_status";
-- reverse: create index "formflow_organization_id_chat_account" to table: "form_flows"
DROP INDEX "formflow_organization_id_chat_account";
-- reverse: create index "formflow_organization_id" to table: "form_flows"
DROP INDEX "formflow_organization_id";
-- reverse: create "form_flows" table
DROP TABLE "form_flows";
-- reverse: create index "customaction_organization_id_display_order" to table: "custom_actions"
DROP INDEX "customaction_organization_id_display_order";
-- reverse: create index "customaction_organization_id" to table: "custom_actions"
DROP INDEX "customaction_organization_id";
-- reverse: create "custom_actions" table
DROP TABLE "custom_actions";
-- reverse: create index "chatbotsettings_organization_id_unique" to table: "chatbot_settings"
DROP INDEX "chatbotsettings_organization_id_unique";
-- reverse: create index "chatbotsettings_organization_id" to table: "chatbot_settings"
DROP INDEX "chatbotsettings_organization_id";
-- reverse: create "chatbot_settings" table
DROP TABLE "chatbot_settings";
-- reverse: create index "chatbotsession_organization_id_status" to table: "chatbot_sessions"
DROP INDEX "chatbotsession_organization_id_status";
-- reverse: create index "chatbotsession_organization_id" to table: "chatbot_sessions"
DROP INDEX "chatbotsession_organization_id";
-- reverse: create index "chatbotsession_contact_id_status" to table: "chatbot_sessions"
DROP INDEX "chatbotsession_contact_id_status";
-- reverse: create "chatbot_sessions" table
DROP TABLE "chatbot_sessions";
-- reverse: create index "chatbotflow_organization_id" to table: "chatbot_flows"
DROP INDEX "chatbotflow_organization_id";
-- reverse: create "chatbot_flows" table
DROP TABLE "chatbot_flows";
-- reverse: create index "catalog_organization_id_chat_account" to table: "catalogs"
DROP INDEX "catalog_organization_id_chat_account";
-- reverse: create index "catalog_organization_id" to table: "catalogs"
DROP INDEX "catalog_organization_id";
-- reverse: create "catalogs" table
DROP TABLE "catalogs";
-- reverse: create index "cannedresponse_organization_id_category" to table: "canned_responses"
DROP INDEX "cannedresponse_organization_id_category";
-- reverse: create index "cannedresponse_organization_id" to table: "canned_responses"
DROP INDEX "cannedresponse_organization_id";
-- reverse: create "canned_responses" table
DROP TABLE "canned_responses";
-- reverse: create index "campaignrecipient_organization_id" to table: "campaign_recipients"
DROP INDEX "campaignrecipient_organization_id";
-- reverse: create index "campaignrecipient_chat_message_id" to table: "campaign_recipients"
DROP INDEX "campaignrecipient_chat_message_id";
-- reverse: create index "campaignrecipient_campaign_id_status" to table: "campaign_recipients"
DROP INDEX "campaignrecipient_campaign_id_status";
-- reverse: create index "campaignrecipient_campaign_id_phone_number" to table: "campaign_recipients"
DROP INDEX "campaignrecipient_campaign_id_phone_number";
-- reverse: create "campaign_recipients" table
DROP TABLE "campaign_recipients";
-- reverse: create index "campaign_organization_id_status" to table: "campaigns"
DROP INDEX "campaign_organization_id_status";
-- reverse: create index "campaign_organization_id_created_at" to table: "campaigns"
DROP INDEX "campaign_organization_id_created_at";
-- reverse: create index "campaign_organization_id" to table: "campaigns"
DROP INDEX "campaign_organization_id";
-- reverse: create "campaigns" table
DROP TABLE "campaigns";
-- reverse: create index "template_organization_id_status" to table: "templates"
DROP INDEX "template_organization_id_status";
-- reverse: create index "template_organization_id_chat_account_name_language" to table: "templates"
DROP INDEX "template_organization_id_chat_account_name_language";
-- reverse: create index "template_organization_id_category" to table: "templates"
DROP INDEX "template_organization_id_category";
-- reverse: create index "template_organization_id" to table: "templates"
DROP INDEX "template_organization_id";
-- reverse: create "templates" table
DROP TABLE "templates";
-- reverse: create index "calltransfer_organization_id_status" to table: "call_transfers"
DROP INDEX "calltransfer_organization_id_status";
-- reverse: create index "calltransfer_organization_id" to table: "call_transfers"
DROP INDEX "calltransfer_organization_id";
-- reverse: create "call_transfers" table
DROP TABLE "call_transfers";
-- reverse: create index "callpermission_organization_id" to table: "call_permissions"
DROP INDEX "callpermission_organization_id";
-- reverse: create index "callpermission_contact_id_chat_account" to table: "call_permissions"
DROP INDEX "callpermission_contact_id_chat_account";
-- reverse: create "call_permissions" table
DROP TABLE "call_permissions";
-- reverse: create index "calllog_organization_id_started_at" to table: "call_logs"
DROP INDEX "calllog_organization_id_started_at";
-- reverse: create index "calllog_organization_id_chat_call_id" to table: "call_logs"
DROP INDEX "calllog_organization_id_chat_call_id";
-- reverse: create index "calllog_organization_id_agent_id" to table: "call_logs"
DROP INDEX "calllog_organization_id_agent_id";
-- reverse: create index "calllog_organization_id" to table: "call_logs"
DROP INDEX "calllog_organization_id";
-- reverse: create "call_logs" table
DROP TABLE "call_logs";
-- reverse: create index "apikey_organization_id_created_at" to table: "api_keys"
DROP INDEX "apikey_organization_id_created_at";
-- reverse: create index "apikey_organization_id" to table: "api_keys"
DROP INDEX "apikey_organization_id";
-- reverse: create index "api_keys_key_hash_key" to table: "api_keys"
DROP INDEX "api_keys_key_hash_key";
-- reverse: create "api_keys" table
DROP TABLE "api_keys";
-- reverse: create index "users_email_key" to table: "users"
DROP INDEX "users_email_key";
-- reverse: create "users" table
DROP TABLE "users";
-- reverse: create index "aicontext_organization_id_priority" to table: "ai_contexts"
DROP INDEX "aicontext_organization_id_priority";
-- reverse: create index "aicontext_organization_id" to table: "ai_contexts"
DROP INDEX "aicontext_organization_id";
-- reverse: create "ai_contexts" table
DROP TABLE "ai_contexts";
-- reverse: create index "agenttransfer_organization_id_status_team_id" to table: "agent_transfers"
DROP INDEX "agenttransfer_organization_id_status_team_id";
-- reverse: create index "agenttransfer_organization_id_agent_id_status" to table: "agent_transfers"
DROP INDEX "agenttransfer_organization_id_agent_id_status";
-- reverse: create index "agenttransfer_organization_id" to table: "agent_transfers"
DROP INDEX "agenttransfer_organization_id";
-- reverse: create index "agenttransfer_contact_id_status" to table: "agent_transfers"
DROP INDEX "agenttransfer_contact_id_status";
-- reverse: create "agent_transfers" table
DROP TABLE "agent_transfers";
-- reverse: create index "contact_organization_id_phone_number" to table: "contacts"
DROP INDEX "contact_organization_id_phone_number";
-- reverse: create index "contact_organization_id_last_message_at" to table: "contacts"
DROP INDEX "contact_organization_id_last_message_at";
-- reverse: create index "contact_organization_id_assigned_user_id" to table: "contacts"
DROP INDEX "contact_organization_id_assigned_user_id";
-- reverse: create index "contact_organization_id" to table: "contacts"
DROP INDEX "contact_organization_id";
-- reverse: create "contacts" table
DROP TABLE "contacts";
-- reverse: create index "agentbreak_organization_id_user_id_started_at" to table: "agent_breaks"
DROP INDEX "agentbreak_organization_id_user_id_started_at";
-- reverse: create index "agentbreak_organization_id" to table: "agent_breaks"
DROP INDEX "agentbreak_organization_id";
-- reverse: create "agent_breaks" table
DROP TABLE "agent_breaks";
-- reverse: create index "account_webhook_verify_token" to table: "accounts"
DROP INDEX "account_webhook_verify_token";
-- reverse: create index "account_phone_id" to table: "accounts"
DROP INDEX "account_phone_id";
-- reverse: create index "account_organization_id_name" to table: "accounts"
DROP INDEX "account_organization_id_name";
-- reverse: create index "account_organization_id" to table: "accounts"
DROP INDEX "account_organization_id";
-- reverse: create "accounts" table
DROP TABLE "accounts";
-- reverse: create index "refreshtoken_user_id" to table: "refresh_tokens"
DROP INDEX "refreshtoken_user_id";
-- reverse: create index "refreshtoken_family_id" to table: "refresh_tokens"
DROP INDEX "refreshtoken_family_id";
-- reverse: create "refresh_tokens" table
DROP TABLE "refresh_tokens";
-- reverse: create index "organizations_slug_key" to table: "organizations"
DROP INDEX "organizations_slug_key";
-- reverse: create "organizations" table
DROP TABLE "organizations";
-- reverse: create index "inboundevent_status_created_at" to table: "inbound_events"
DROP INDEX "inboundevent_status_created_at";
-- reverse: create index "inboundevent_account_phone_id" to table: "inbound_events"
DROP INDEX "inboundevent_account_phone_id";
-- reverse: create index "inbound_events_dedupe_key_key" to table: "inbound_events"
DROP INDEX "inbound_events_dedupe_key_key";
-- reverse: create "inbound_events" table
DROP TABLE "inbound_events";
