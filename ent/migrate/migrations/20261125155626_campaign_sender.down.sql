-- reverse: modify "campaigns" table
ALTER TABLE "campaigns" DROP COLUMN "error_message", DROP COLUMN "header_media_mime_type", DROP COLUMN "header_media_filename", DROP COLUMN "header_media_path";
-- reverse: modify "campaign_recipients" table
ALTER TABLE "campaign_recipients" DROP COLUMN "attempts", DROP COLUMN "retry_at", DROP COLUMN "sending_at";
