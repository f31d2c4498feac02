package media

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pion/sdp/v3"
)

// ErrBadSDP is wrapped by every error caused by an unusable remote SDP.
var ErrBadSDP = errors.New("media: bad SDP")

// maxSDPSize bounds a remote description; real audio offers are a few KiB.
const maxSDPSize = 64 << 10

// checkRemoteSDP refuses descriptions that are too large, unparsable, or
// offer no Opus audio, before pion sees them.
func checkRemoteSDP(s string) error {
	if len(s) == 0 {
		return fmt.Errorf("%w: empty", ErrBadSDP)
	}
	if len(s) > maxSDPSize {
		return fmt.Errorf("%w: larger than %d bytes", ErrBadSDP, maxSDPSize)
	}
	var desc sdp.SessionDescription
	if err := desc.UnmarshalString(s); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSDP, err)
	}
	for _, m := range desc.MediaDescriptions {
		if m.MediaName.Media == "audio" && offersOpus(m) {
			return nil
		}
	}
	return fmt.Errorf("%w: no Opus audio section", ErrBadSDP)
}

func offersOpus(m *sdp.MediaDescription) bool {
	for _, a := range m.Attributes {
		if a.Key == "rtpmap" && strings.Contains(strings.ToLower(a.Value), " opus/48000") {
			return true
		}
	}
	return false
}
