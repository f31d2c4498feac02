-- drop index "contact_organization_id" from table: "contacts"
DROP INDEX "contact_organization_id";
-- drop index "inboundevent_account_phone_id" from table: "inbound_events"
DROP INDEX "inboundevent_account_phone_id";
-- drop index "message_organization_id" from table: "messages"
DROP INDEX "message_organization_id";
