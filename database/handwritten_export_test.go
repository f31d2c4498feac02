package database

// HandWrittenIndexNames are the hand-written indexes (inboxindex.go,
// listindex.go, searchindex.go).
func HandWrittenIndexNames() []string {
	names := make([]string, len(handWrittenIndexes))
	for i, ix := range handWrittenIndexes {
		names[i] = ix.name
	}
	return names
}
