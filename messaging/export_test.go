package messaging

import "time"

// Unexported parts of the message search, for the package's external
// tests and fuzz targets.
var (
	ParseSearch   = parseSearch
	Highlight     = highlight
	PositiveTexts = positiveTexts
	BodyOf        = bodyOf
	HourLexemes   = hourLexemes
)

// SetSearchTimeout sets the bound of a search until the test ends.
func SetSearchTimeout(t interface{ Cleanup(func()) }, d time.Duration) {
	old := searchTimeout
	searchTimeout = d
	t.Cleanup(func() { searchTimeout = old })
}

// SetSearchWalkBudget sets how long a search walks until the test ends.
func SetSearchWalkBudget(t interface{ Cleanup(func()) }, d time.Duration) {
	old := searchWalkBudget
	searchWalkBudget = d
	t.Cleanup(func() { searchWalkBudget = old })
}
