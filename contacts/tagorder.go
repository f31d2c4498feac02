package contacts

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent/viewer"
)

// A filter on tags alone reads the tag order on PostgreSQL
// (database.ContactTagOrder): each tag's entries of the viewer's
// organization in inbox order, through contact_tag_order_inbox. A page
// merges the first offset+limit entries of each tag (a contact holding
// two of them is one), so its cost is the page's depth times the tags,
// whatever the organization holds; the rows are then read through ent,
// which scopes them to the organization again.

// tagPageSQL: $1 the organization, $2 the tags, $3 how many entries of
// each tag (offset+limit), $4 the offset, $5 the limit. A contact's
// entries carry the same order, so DISTINCT folds them.
const tagPageSQL = `SELECT contact_id FROM (
	SELECT DISTINCT e.contact_id, e.last_message_at, e.created_at
	FROM unnest($2::text[]) AS t(tag)
	CROSS JOIN LATERAL (
		SELECT contact_id, last_message_at, created_at FROM contact_tag_order
		WHERE organization_id = $1 AND tag = t.tag
		ORDER BY last_message_at DESC NULLS LAST, created_at DESC, contact_id
		LIMIT $3) e) d
ORDER BY last_message_at DESC NULLS LAST, created_at DESC, contact_id
OFFSET $4 LIMIT $5`

// tagCountSQL counts the contacts holding one of the tags $2 up to $3:
// at most $3 entries of each tag, so past $3-1 the count is capped
// (one tag alone holds more) and below it exact. The order is the
// index's, so that the entries are read from it (an index-only scan)
// even where a tag is most of the table and a scan looks as cheap.
const tagCountSQL = `SELECT count(*) FROM (
	SELECT DISTINCT e.contact_id
	FROM unnest($2::text[]) AS t(tag)
	CROSS JOIN LATERAL (
		SELECT contact_id FROM contact_tag_order
		WHERE organization_id = $1 AND tag = t.tag
		ORDER BY last_message_at DESC NULLS LAST, created_at DESC, contact_id
		LIMIT $3) e) d`

// tagPageIDs returns the ids of a page of the contacts holding one of
// tags, in inbox order.
func (s *Service) tagPageIDs(ctx context.Context, tags []string, offset, limit int) ([]uuid.UUID, error) {
	ids, err := database.QueryIDs(ctx, s.db(ctx), tagPageSQL,
		viewer.FromContext(ctx).OrgID, tagArray(tags), offset+limit, offset, limit)
	return ids, apperr.Wrap(err, "contact")
}

// tagCount is Count for a filter on tags alone.
func (s *Service) tagCount(ctx context.Context, f Filter, bound int) (total int, capped bool, err error) {
	if err := f.check(); err != nil {
		return 0, false, err
	}
	err = database.ScanOne(ctx, s.db(ctx), tagCountSQL,
		[]any{viewer.FromContext(ctx).OrgID, tagArray(f.tagNames()), bound + 1}, &total)
	if err != nil {
		return 0, false, apperr.Wrap(err, "contact")
	}
	if total > bound {
		return bound + 1, true, nil
	}
	return total, false, nil
}

func tagArray(tags []string) *database.Array {
	a := database.NewArray(64 * len(tags))
	for _, t := range tags {
		a.String(t)
	}
	return a
}
