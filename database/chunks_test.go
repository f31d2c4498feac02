package database_test

import (
	"errors"
	"slices"
	"testing"

	"switchboard/database"
)

func TestInChunks(t *testing.T) {
	items := make([]int, 70000)
	for i := range items {
		items[i] = i
	}
	for _, tc := range []struct {
		name    string
		items   []int
		params  int
		lengths []int
	}{
		{"Empty", nil, 10, nil},
		{"OneChunk", items[:100], 17, []int{100}},
		{"RowsOfSeventeenColumns", items[:5000], 17, []int{1927, 1927, 1146}},
		{"InList", items, 1, []int{database.MaxParams, database.MaxParams, 70000 - 2*database.MaxParams}},
		{"WiderThanTheLimit", items[:2], database.MaxParams + 1, []int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lengths []int
			var seen []int
			err := database.InChunks(tc.items, tc.params, func(part []int) error {
				if len(part)*tc.params > database.MaxParams && len(part) > 1 {
					t.Errorf("a chunk of %d items binds %d parameters", len(part), len(part)*tc.params)
				}
				lengths = append(lengths, len(part))
				seen = append(seen, part...)
				return nil
			})
			if err != nil || !slices.Equal(lengths, tc.lengths) || !slices.Equal(seen, tc.items) {
				t.Fatalf("chunks %v (err %v), want %v covering every item in order", lengths, err, tc.lengths)
			}
		})
	}
	t.Run("StopsAtTheFirstError", func(t *testing.T) {
		calls := 0
		boom := errors.New("boom")
		err := database.InChunks(items, 1, func([]int) error { calls++; return boom })
		if !errors.Is(err, boom) || calls != 1 {
			t.Fatalf("err %v after %d calls", err, calls)
		}
	})
}
