package media

// opusSamples is the duration of an Opus packet in 48 kHz samples, read
// from its TOC byte (RFC 6716 section 3.1); 0 for a malformed packet.
func opusSamples(p []byte) uint32 {
	if len(p) == 0 {
		return 0
	}
	toc := p[0]
	frames := uint32(1)
	switch toc & 3 {
	case 1, 2:
		frames = 2
	case 3:
		if len(p) < 2 {
			return 0
		}
		frames = uint32(p[1] & 0x3f)
	}
	n := frames * frameSamples(toc>>3)
	if n > 5760 { // 120 ms is Opus's maximum packet duration
		return 0
	}
	return n
}

// frameSamples is the frame size of an Opus configuration number.
func frameSamples(config byte) uint32 {
	switch {
	case config < 12: // SILK: 10, 20, 40, 60 ms
		return [4]uint32{480, 960, 1920, 2880}[config%4]
	case config < 16: // Hybrid: 10, 20 ms
		return [2]uint32{480, 960}[config%2]
	default: // CELT: 2.5, 5, 10, 20 ms
		return [4]uint32{120, 240, 480, 960}[config%4]
	}
}
