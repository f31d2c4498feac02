package config

import (
	"io"
	"log/slog"

	"github.com/mattn/go-isatty"
)

// NewLogger returns the process logger writing to w at cfg.LogLevel: JSON
// when LOG_FORMAT is json, or when it is auto and w is not a terminal (log
// collectors get one object per line, people at a console get text).
func NewLogger(cfg *Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if useJSON(cfg.LogFormat, w) {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func useJSON(format string, w io.Writer) bool {
	switch format {
	case LogFormatJSON:
		return true
	case LogFormatText:
		return false
	}
	f, ok := w.(interface{ Fd() uintptr })
	return !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
