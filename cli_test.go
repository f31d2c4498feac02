package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCLI: --help describes the commands without starting anything;
// check-config prints the effective configuration with secrets masked;
// an unknown command or a stray argument is refused.
func TestCLI(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("DATABASE_URL", "postgres://app:hunter2@db.internal:5432/switchboard")
	t.Setenv("TURN_SECRET", "turn-shared-secret")
	tests := []struct {
		name     string
		args     []string
		wantErr  bool
		contains []string
		absent   []string
	}{
		{name: "Help", args: []string{"--help"}, contains: []string{"serve", "http", "worker", "check-config"}},
		{name: "ServeHelp", args: []string{"serve", "--help"}, contains: []string{"Run the HTTP server and the background workers"}},
		{name: "CheckConfig", args: []string{"check-config"},
			contains: []string{"DATABASE_URL=[set]\n", "TURN_SECRET=[set]\n", "LISTEN_ADDR=:8080\n", "RUN_MODE=all\n"},
			absent:   []string{"hunter2", "turn-shared-secret"}},
		{name: "UnknownCommand", args: []string{"bogus"}, wantErr: true},
		{name: "StrayArgument", args: []string{"serve", "now"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand(&out)
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v; output:\n%s", err, tt.wantErr, out.String())
			}
			for _, s := range tt.contains {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(out.String(), s) {
					t.Errorf("output shows %q", s)
				}
			}
		})
	}
}

// TestCheckConfigRefusesBadValues: a bad setting is reported, not
// printed as if it were fine.
func TestCheckConfigRefusesBadValues(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	t.Setenv("RUN_MODE", "sometimes")
	var out bytes.Buffer
	cmd := newRootCommand(&out)
	cmd.SetArgs([]string{"check-config"})
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "RUN_MODE") {
		t.Fatalf("err = %v, want the RUN_MODE problem", err)
	}
	if out.Len() != 0 {
		t.Fatalf("printed a configuration that does not load:\n%s", out.String())
	}
}
