package media

// dtmfDetector turns RFC 4733 telephone-event packets into digits. All
// packets of one key press share the event's RTP timestamp, and the end
// packet is sent three times: a digit is reported once per timestamp.
type dtmfDetector struct {
	onDigit func(rune)
	seen    bool
	lastTS  uint32
}

// packet handles one telephone-event payload: event (8 bits), E, R,
// volume (6 bits), duration (16 bits).
func (d *dtmfDetector) packet(ts uint32, payload []byte) {
	if len(payload) < 4 {
		return
	}
	if d.seen && ts == d.lastTS {
		return
	}
	d.seen, d.lastTS = true, ts
	if r, ok := dtmfDigit(payload[0]); ok && d.onDigit != nil {
		d.onDigit(r)
	}
}

// dtmfDigit maps RFC 4733 events 0-15 to their keys.
func dtmfDigit(event byte) (rune, bool) {
	const keys = "0123456789*#ABCD"
	if int(event) >= len(keys) {
		return 0, false
	}
	return rune(keys[event]), true
}

// DTMFEvent is the RFC 4733 event code of a key ('0'-'9', '*', '#', 'A'-'D').
func DTMFEvent(digit rune) (byte, bool) {
	switch {
	case digit >= '0' && digit <= '9':
		return byte(digit - '0'), true
	case digit == '*':
		return 10, true
	case digit == '#':
		return 11, true
	case digit >= 'A' && digit <= 'D':
		return byte(12 + digit - 'A'), true
	case digit >= 'a' && digit <= 'd':
		return byte(12 + digit - 'a'), true
	}
	return 0, false
}
