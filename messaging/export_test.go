package messaging

import "time"

// Unexported parts of the message search, for the package's external
// tests and fuzz targets.
var (
	ParseSearch   = parseSearch
	Highlight     = highlight
	PositiveTexts = positiveTexts
)

// SetSearchTimeout sets the bound of a search until the test ends.
func SetSearchTimeout(t interface{ Cleanup(func()) }, d time.Duration) {
	old := searchTimeout
	searchTimeout = d
	t.Cleanup(func() { searchTimeout = old })
}
