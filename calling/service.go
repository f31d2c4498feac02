// Package calling owns voice calling's data and configuration: IVR flows,
// call logs, call transfers, call permissions, recordings and the ICE
// servers handed to browsers. The live call machinery (media legs, IVR
// playback, call control) builds on the same Service in its own files;
// calling/audio keeps the organizations' audio files and calling/ivr the
// IVR menu graphs.
//
// The package must not know about HTTP transports (rest/, graph/).
package calling

import (
	"time"

	"switchboard/calling/audio"
	"switchboard/ent"
	"switchboard/messaging"
)

// Bounds of lists.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
	MaxPage         = 1_000_000
)

// Service is the calling operations.
type Service struct {
	Client *ent.Client
	// Messaging sends the call permission request message.
	Messaging *messaging.Service
	// Audio holds the organizations' audio files IVR menus name.
	Audio *audio.Store
	// ICE is the ICE configuration handed to browsers.
	ICE ICEConfig
	// Recordings stores call recordings.
	Recordings RecordingStore
	// RecordingURLs signs recording download links.
	RecordingURLs *URLSigner
	// AllowPrivate lets IVR http_callback nodes name private addresses
	// (OUTBOUND_ALLOW_PRIVATE).
	AllowPrivate bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
