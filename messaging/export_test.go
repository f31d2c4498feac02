package messaging

// Unexported parts of the message search, for the package's external
// tests and fuzz targets.
var (
	ParseSearch   = parseSearch
	Highlight     = highlight
	PositiveTexts = positiveTexts
)
