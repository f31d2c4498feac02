SET LOCAL lock_timeout = '10s';
ALTER INDEX "message_search" RESET (gin_pending_list_limit);
ALTER INDEX "contact_names_hours" RESET (gin_pending_list_limit);
ALTER INDEX "contact_phone_hours" RESET (gin_pending_list_limit);
ALTER INDEX "contact_tags" RESET (gin_pending_list_limit);
