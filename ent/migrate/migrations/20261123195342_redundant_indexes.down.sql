-- reverse: drop index "message_organization_id" from table: "messages"
CREATE INDEX "message_organization_id" ON "messages" ("organization_id");
-- reverse: drop index "inboundevent_account_phone_id" from table: "inbound_events"
CREATE INDEX "inboundevent_account_phone_id" ON "inbound_events" ("account_phone_id");
-- reverse: drop index "contact_organization_id" from table: "contacts"
CREATE INDEX "contact_organization_id" ON "contacts" ("organization_id");
