// Package benchkit holds the small helpers the benchmark tools of bench/
// share: run-unique ids, prefix queries on indexed text columns, the
// classification of a webhook POST's answer and its retry backoff, and
// reading a process's memory and CPU time from /proc.
package benchkit

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RandomHex returns 2n random hexadecimal characters.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RandomDigits returns n random decimal digits, the first one not zero.
func RandomDigits(n int) string {
	var b strings.Builder
	for i := range n {
		lo := int64(0)
		if i == 0 {
			lo = 1
		}
		d, _ := rand.Int(rand.Reader, big.NewInt(10-lo))
		b.WriteByte(byte('0' + lo + d.Int64()))
	}
	return b.String()
}

// PrefixRange returns bounds [lo, hi) of the strings starting with p (for
// a byte-ordered collation) and the equivalent LIKE pattern: a condition
// with both lets a unique index serve a prefix search.
func PrefixRange(p string) (lo, hi, like string) {
	b := []byte(p)
	b[len(b)-1]++
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(p)
	return p, string(b), esc + "%"
}

// Classify names the answer to a webhook POST as the platform sees it: 200
// acknowledges; transport errors, 5xx, 408 and 429 are retried; any other
// answer is refused for good.
func Classify(resp *http.Response, err error) (ok bool, kind string, retry bool) {
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return false, "connection refused", true
	case errors.Is(err, syscall.ECONNRESET):
		return false, "connection reset", true
	case errors.As(err, &nerr) && nerr.Timeout():
		return false, "timeout", true
	case err != nil:
		return false, "transport error", true
	case resp.StatusCode == http.StatusOK:
		return true, "", false
	}
	c := resp.StatusCode
	return false, "HTTP " + strconv.Itoa(c), c >= 500 || c == http.StatusTooManyRequests || c == http.StatusRequestTimeout
}

// Backoff is the wait before retry n: 100 ms doubling to 1 s, with jitter.
func Backoff(n int) time.Duration {
	d := min(100*time.Millisecond<<min(n, 4), time.Second)
	return d/2 + mrand.N(d/2+1)
}

// ProcStatusKB reads a "Name:   12345 kB" line (VmRSS:, VmHWM:) of
// /proc/<pid>/status.
func ProcStatusKB(pid int, name string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name); ok {
			if fields := strings.Fields(rest); len(fields) > 0 {
				return strconv.ParseInt(fields[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", name, pid)
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat times (100 on Linux).
const clockTick = 10 * time.Millisecond

// CPUTime reads utime + stime from /proc/<pid>/stat.
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * clockTick, nil
}
