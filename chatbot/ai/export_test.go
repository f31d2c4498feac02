package ai

// Decoders of the vendors' successful answers, for the decoder tests and
// fuzz targets.
var (
	DecodeOpenAI    = decodeOpenAI
	DecodeAnthropic = decodeAnthropic
	DecodeGoogle    = decodeGoogle
)
