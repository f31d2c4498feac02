package database

// ListIndexNames are the lists' hand-written indexes (listindex.go).
func ListIndexNames() []string {
	names := make([]string, len(listIndexes))
	for i, ix := range listIndexes {
		names[i] = ix.name
	}
	return names
}
