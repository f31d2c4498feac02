package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireTool returns the path of a program a test needs (ffmpeg,
// ffprobe). Where it is missing the test is skipped, so the README's test
// command works on a fresh machine, unless the run requires every service
// (TEST_REQUIRE_SERVICES, as CI sets; CI installs the tools): then it
// fails.
func RequireTool(tb testing.TB, name string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("TEST_REQUIRE_SERVICES") != "" {
		tb.Fatalf("%s is required (TEST_REQUIRE_SERVICES is set) but not installed", name)
	}
	tb.Skipf("%s not installed", name)
	return ""
}
