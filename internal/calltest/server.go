// Package calltest runs the built server as a process and plays the two
// other ends of a call against it over loopback: the platform (a Graph
// API fake that records each call action, and signed `calls` webhooks
// carrying the caller's SDP offer) and the agent's browser (the REST
// calls of an agent). The end-to-end test of calling/e2e and the
// benchmark bench/calls use it. For tests and benchmarks only.
package calltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Build builds the server binary into dir (go build -o dir/switchboard .
// at the root of the module that holds this package) and returns its path.
func Build(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "switchboard")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
}

func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the switchboard module")
	}
	return filepath.Dir(gomod), nil
}

// FreeAddr returns a loopback host:port nobody listens on now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Server is a running server process.
type Server struct {
	// URL is http://LISTEN_ADDR.
	URL     string
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// Start runs bin with env (and PATH and HOME from this process: ffmpeg is
// found on PATH), its output appended to logPath, and waits until its
// /healthz answers 200. env must hold LISTEN_ADDR.
func Start(ctx context.Context, bin string, env map[string]string, logPath string) (*Server, error) {
	addr := env["LISTEN_ADDR"]
	if addr == "" {
		return nil, errors.New("calltest: LISTEN_ADDR is required")
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = filepath.Dir(logPath) // no stray .env is read
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, LogPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitHealthy(ctx, 90*time.Second); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("%w; its log ends:\n%s", err, s.LogTail(30))
	}
	return s, nil
}

func (s *Server) waitHealthy(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("calltest: the server exited: %v", s.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := client.Get(s.URL + "/healthz")
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
	}
	return fmt.Errorf("calltest: %s/healthz did not answer 200 within %s", s.URL, limit)
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Stop asks the server to stop (SIGTERM) and waits for it, killing it
// after 20 s.
func (s *Server) Stop() error {
	select {
	case <-s.exited:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return nil
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return errors.New("calltest: the server did not stop within 20 s of SIGTERM; killed")
	}
}

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string {
	b, _ := os.ReadFile(s.LogPath)
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
