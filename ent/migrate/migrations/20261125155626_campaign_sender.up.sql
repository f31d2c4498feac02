-- modify "campaign_recipients" table
ALTER TABLE "campaign_recipients" ADD COLUMN "sending_at" timestamptz NULL, ADD COLUMN "retry_at" timestamptz NULL, ADD COLUMN "attempts" bigint NOT NULL DEFAULT 0;
-- modify "campaigns" table
ALTER TABLE "campaigns" ADD COLUMN "header_media_path" character varying NOT NULL DEFAULT '', ADD COLUMN "header_media_filename" character varying NOT NULL DEFAULT '', ADD COLUMN "header_media_mime_type" character varying NOT NULL DEFAULT '', ADD COLUMN "error_message" character varying NOT NULL DEFAULT '';
