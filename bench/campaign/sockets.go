package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// portOwners tells which server process owns a TCP connection to the
// fake: it maps the connection's local port (the fake sees it as the
// client's port) to the index of the PID file whose process holds the
// socket, from /proc/<pid>/fd and /proc/net/tcp. Connections are kept
// alive, so sampling now and then sees them.
type portOwners struct {
	files    []string
	fakePort int
	mu       sync.Mutex
	owner    map[int]int // client port → index in files
}

func (o *portOwners) sample() {
	inodes := map[string]int{}
	for i, f := range o.files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid := strings.TrimSpace(string(b))
		fds, _ := filepath.Glob("/proc/" + pid + "/fd/*")
		for _, fd := range fds {
			l, err := os.Readlink(fd)
			if err == nil && strings.HasPrefix(l, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = i
			}
		}
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := fmt.Sprintf(":%04X", o.fakePort)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owner == nil {
		o.owner = map[int]int{}
	}
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || !strings.HasSuffix(fields[2], want) {
			continue
		}
		idx, ok := inodes[fields[9]]
		if !ok {
			continue
		}
		_, port, _ := strings.Cut(fields[1], ":")
		if p, err := strconv.ParseInt(port, 16, 32); err == nil {
			o.owner[int(p)] = idx
		}
	}
}

// of returns the index of the process that owns the client address
// host:port, or -1.
func (o *portOwners) of(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	p, err := strconv.Atoi(addr[i+1:])
	if err != nil {
		return -1
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if idx, ok := o.owner[p]; ok {
		return idx
	}
	return -1
}
