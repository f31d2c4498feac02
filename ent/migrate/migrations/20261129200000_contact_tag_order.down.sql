DROP TRIGGER IF EXISTS contact_tags_updated ON contacts;
DROP TRIGGER IF EXISTS contact_tags_inserted ON contacts;
DROP FUNCTION IF EXISTS contact_tags_updated();
DROP FUNCTION IF EXISTS contact_tags_inserted();
DROP TABLE IF EXISTS contact_tag_order;
