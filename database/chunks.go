package database

// MaxParams is the most bind parameters one statement may carry on both
// engines: PostgreSQL takes 65,535, the embedded SQLite 32,766.
const MaxParams = 32766

// InChunks calls fn with consecutive parts of items, each small enough
// that a statement binding paramsPerItem parameters for every item (the
// columns of a bulk INSERT's rows, 1 for an IN list) stays within
// MaxParams. It stops at fn's first error. Every bulk INSERT, upsert and
// long IN list goes through it: one platform delivery may carry thousands
// of messages.
func InChunks[T any](items []T, paramsPerItem int, fn func(part []T) error) error {
	n := max(MaxParams/max(paramsPerItem, 1), 1)
	for len(items) > 0 {
		k := min(n, len(items))
		if err := fn(items[:k]); err != nil {
			return err
		}
		items = items[k:]
	}
	return nil
}
