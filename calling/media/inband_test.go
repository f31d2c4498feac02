package media

import (
	"math"
	"math/rand"
	"testing"
)

// pcm8k is ms milliseconds of the sum of the given tones (each of
// amplitude amp) at 8 kHz, with optional noise.
func pcm8k(ms int, amp, noise float64, freqs ...float64) []int16 {
	n := inbandRate * ms / 1000
	out := make([]int16, n)
	r := rand.New(rand.NewSource(1))
	for i := range out {
		var v float64
		for _, f := range freqs {
			v += amp * math.Sin(2*math.Pi*f*float64(i)/inbandRate)
		}
		v += noise * (r.Float64()*2 - 1)
		out[i] = int16(max(-32768, min(32767, v)))
	}
	return out
}

func TestInbandDetector(t *testing.T) {
	key := func(r rune) []float64 {
		for i, row := range dtmfKeys {
			for j, k := range row {
				if k == r {
					return []float64{dtmfRows[i], dtmfCols[j]}
				}
			}
		}
		t.Fatalf("no key %q", r)
		return nil
	}
	silence := pcm8k(100, 0, 0)
	tests := []struct {
		name  string
		audio [][]int16
		want  string
	}{
		{"OneKey", [][]int16{pcm8k(120, 8000, 0, key('5')...)}, "5"},
		{"EveryKey", func() [][]int16 {
			var a [][]int16
			for _, r := range "0123456789*#ABCD" {
				a = append(a, pcm8k(100, 6000, 0, key(r)...), silence)
			}
			return a
		}(), "0123456789*#ABCD"},
		{"HeldKeyOnce", [][]int16{pcm8k(600, 8000, 0, key('9')...)}, "9"},
		{"SameKeyTwice", [][]int16{pcm8k(100, 8000, 0, key('1')...), silence, pcm8k(100, 8000, 0, key('1')...)}, "11"},
		{"WithNoise", [][]int16{pcm8k(120, 8000, 1500, key('#')...)}, "#"},
		{"TooShort", [][]int16{pcm8k(25, 8000, 0, key('3')...)}, ""},
		{"OneToneOnly", [][]int16{pcm8k(200, 10000, 0, 770)}, ""},
		{"Silence", [][]int16{silence}, ""},
		{"NotDTMF", [][]int16{pcm8k(300, 8000, 0, 440, 880)}, ""},
		{"Noise", [][]int16{pcm8k(300, 0, 12000)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []rune
			d := &inbandDetector{onDigit: func(r rune) { got = append(got, r) }}
			for _, a := range tt.audio {
				d.samples(a)
			}
			if string(got) != tt.want {
				t.Fatalf("keys %q, want %q", string(got), tt.want)
			}
		})
	}
}

// FuzzInbandPacket: whatever a remote sends as Opus, the detector neither
// panics nor hangs (it runs on the leg's receive goroutine).
func FuzzInbandPacket(f *testing.F) {
	f.Add([]byte{0xfc, 0xff, 0xfe})
	f.Add([]byte{0x78, 0x01, 0x02, 0x03})
	f.Add([]byte{0x08})
	f.Fuzz(func(t *testing.T, payload []byte) {
		d := newInbandDetector(func(rune) {})
		for range 3 {
			d.packet(payload)
		}
	})
}
