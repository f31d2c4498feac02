package database_test

import (
	"fmt"
	"slices"
	"testing"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/tag"
	"switchboard/internal/testkit"
)

// TestPageAt: a page read by its ids first (from database.DeepOffset on)
// holds the rows, in the order, that one statement with the offset
// reads; past the last row it is empty; another organization's rows are
// never on it.
func TestPageAt(t *testing.T) {
	db := testkit.OpenDB(t)
	_, ctx := testkit.NewOrg(t, db.Client, "acme")
	_, other := testkit.NewOrg(t, db.Client, "globex")
	const n = database.DeepOffset + 60
	for org, rows := range map[int]int{0: n, 1: 50} {
		at := ctx
		if org == 1 {
			at = other
		}
		builders := make([]*ent.TagCreate, rows)
		for i := range builders {
			builders[i] = db.Client.Tag.Create().SetName(fmt.Sprintf("tag %d-%05d", org, i))
		}
		for chunk := range slices.Chunk(builders, 500) {
			if _, err := db.Client.Tag.CreateBulk(chunk...).Save(at); err != nil {
				t.Fatal(err)
			}
		}
	}
	ordered := func() *ent.TagQuery {
		return db.Client.Tag.Query().Order(ent.Desc(tag.FieldName), ent.Asc(tag.FieldID))
	}
	for _, tc := range []struct{ offset, limit, want int }{
		{0, 20, 20},
		{database.DeepOffset - 10, 20, 20},
		{database.DeepOffset, 50, 50},
		{database.DeepOffset + 40, 50, 20},
		{database.DeepOffset + 60, 50, 0},
	} {
		t.Run(fmt.Sprintf("offset %d", tc.offset), func(t *testing.T) {
			want, err := ordered().Offset(tc.offset).Limit(tc.limit).IDs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			q, err := database.PageAt(ctx, ordered(), tc.offset, tc.limit, tag.IDIn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := q.IDs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want || !slices.Equal(got, want) {
				t.Errorf("page of %d rows %v, want %d: %v", len(got), got, tc.want, want)
			}
		})
	}
}
