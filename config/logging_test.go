package config_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"switchboard/config"
)

func TestNewLogger(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		out      func(t *testing.T) (io.Writer, func() string)
		wantJSON bool
		wantInfo bool // whether an Info record passes the level
	}{
		{name: "JSON", vars: map[string]string{"LOG_FORMAT": "json"}, out: buffer, wantJSON: true, wantInfo: true},
		{name: "Text", vars: map[string]string{"LOG_FORMAT": "text"}, out: buffer, wantJSON: false, wantInfo: true},
		{name: "AutoBufferIsJSON", vars: nil, out: buffer, wantJSON: true, wantInfo: true},
		{name: "AutoPipeIsJSON", vars: nil, out: pipe, wantJSON: true, wantInfo: true},
		{name: "LevelWarnDropsInfo", vars: map[string]string{"LOG_LEVEL": "warn", "LOG_FORMAT": "json"}, out: buffer, wantJSON: true, wantInfo: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, read := tt.out(t)
			logger := config.NewLogger(MustLoad(t, tt.vars), w)
			logger.Info("hello", "k", "v")
			logger.Error("bye")
			lines := strings.Split(strings.TrimSpace(read()), "\n")
			if want := map[bool]int{true: 2, false: 1}[tt.wantInfo]; len(lines) != want {
				t.Fatalf("got %d lines, want %d: %q", len(lines), want, lines)
			}
			isJSON := json.Valid([]byte(lines[0]))
			if isJSON != tt.wantJSON {
				t.Errorf("JSON = %v, want %v: %s", isJSON, tt.wantJSON, lines[0])
			}
		})
	}
}

func buffer(t *testing.T) (io.Writer, func() string) {
	var b bytes.Buffer
	return &b, b.String
}

// pipe stands in for stderr redirected to a log collector.
func pipe(t *testing.T) (io.Writer, func() string) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return w, func() string {
		w.Close()
		var b strings.Builder
		s := bufio.NewScanner(r)
		for s.Scan() {
			b.WriteString(s.Text() + "\n")
		}
		return b.String()
	}
}
