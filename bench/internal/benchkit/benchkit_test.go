package benchkit

import (
	"errors"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestPrefixRange(t *testing.T) {
	for _, tc := range []struct{ prefix, lo, hi, like string }{
		{"wamid.bench-ab12-", "wamid.bench-ab12-", "wamid.bench-ab12.", "wamid.bench-ab12-%"},
		{"1234567", "1234567", "1234568", "1234567%"},
		{"a_b%", "a_b%", "a_b&", `a\_b\%%`},
	} {
		lo, hi, like := PrefixRange(tc.prefix)
		if lo != tc.lo || hi != tc.hi || like != tc.like {
			t.Errorf("PrefixRange(%q) = %q %q %q", tc.prefix, lo, hi, like)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		err       error
		ok, retry bool
	}{
		{"Acknowledged", http.StatusOK, nil, true, false},
		{"ServerError", http.StatusServiceUnavailable, nil, false, true},
		{"InternalError", http.StatusInternalServerError, nil, false, true},
		{"TooMany", http.StatusTooManyRequests, nil, false, true},
		{"BadSignature", http.StatusUnauthorized, nil, false, false},
		{"BadRequest", http.StatusBadRequest, nil, false, false},
		{"Refused", 0, syscall.ECONNREFUSED, false, true},
		{"OtherTransport", 0, errors.New("EOF"), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp *http.Response
			if tc.err == nil {
				resp = &http.Response{StatusCode: tc.status}
			}
			ok, kind, retry := Classify(resp, tc.err)
			if ok != tc.ok || retry != tc.retry || (ok == (kind != "")) {
				t.Fatalf("Classify = %v %q %v", ok, kind, retry)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n      int
		lo, hi time.Duration
	}{
		{0, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 500 * time.Millisecond, time.Second},
		{30, 500 * time.Millisecond, time.Second},
	} {
		if d := Backoff(tc.n); d < tc.lo || d > tc.hi {
			t.Errorf("Backoff(%d) = %s, want in [%s, %s]", tc.n, d, tc.lo, tc.hi)
		}
	}
}

func TestRandom(t *testing.T) {
	if h := RandomHex(4); len(h) != 8 {
		t.Errorf("RandomHex(4) = %q", h)
	}
	for range 100 {
		if d := RandomDigits(5); len(d) != 5 || d[0] == '0' {
			t.Fatalf("RandomDigits(5) = %q", d)
		}
	}
}

// TestProc reads this process's own /proc entries.
func TestProc(t *testing.T) {
	if kib, err := ProcStatusKB(os.Getpid(), "VmRSS:"); err != nil || kib <= 0 {
		t.Errorf("VmRSS = %d, %v", kib, err)
	}
	if _, err := ProcStatusKB(os.Getpid(), "NoSuchField:"); err == nil {
		t.Error("a missing field read without an error")
	}
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Errorf("CPUTime: %v", err)
	}
}
