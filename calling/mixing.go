package calling

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/calling/media"
	"switchboard/ent"
	"switchboard/ent/viewer"
)

// mixLimit bounds one recording's mix (ffmpeg) and store.
const mixLimit = 2 * time.Minute

// mixStopWait is how long Stop waits for the mixes queued or running;
// those not done by then are stopped and their parts left for the next
// start (recoverRecordings).
const mixStopWait = 10 * time.Second

// mixSlots is how many recordings are mixed at once: ffmpeg takes a core
// while it runs, and the live calls' media must keep the others.
func mixSlots() int { return max(1, runtime.NumCPU()/2) }

// storeRecordingLater finishes a call's recorded legs now (their files on
// disk are complete from here on) and mixes and stores them in the
// background, at most mixSlots at a time. Stop waits mixStopWait for the
// mixes; parts left behind then, or by a crash, are mixed at the next
// Start (recoverRecordings). The call log gets its recording_storage_key once
// the file is stored: that is when the recording can be downloaded.
func (m *Manager) storeRecordingLater(orgID, logID uuid.UUID, recs []*media.Recording, parts []string) {
	if len(recs) == 0 {
		return
	}
	for _, r := range recs {
		if _, err := r.Stop(); err != nil {
			m.Log.Warn("finishing a recording failed", "call_log_id", logID, "error", err)
		}
	}
	m.mixLater(orgID, logID, parts)
}

// mixLater runs storeRecording in a goroutine Stop waits for, once a
// slot is free. After Stop the parts stay for the next start.
func (m *Manager) mixLater(orgID, logID uuid.UUID, parts []string) {
	m.mixMu.Lock()
	defer m.mixMu.Unlock()
	if m.mixStopped {
		m.Log.Info("a call's recording is left to mix at the next start", "call_log_id", logID)
		return
	}
	if m.mixQueue == nil {
		m.mixQueue = make(chan struct{}, mixSlots())
		m.mixCtx, m.mixCancel = context.WithCancel(context.Background())
	}
	slots, ctx := m.mixQueue, viewer.SystemContext(m.mixCtx, orgID)
	m.mixing.Add(1)
	go func() {
		defer m.mixing.Done()
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			m.storeRecording(ctx, orgID, logID, parts)
		case <-ctx.Done():
			m.Log.Info("a call's recording is left to mix at the next start", "call_log_id", logID)
		}
	}()
}

// waitMixes stops taking background mixes and waits mixStopWait for
// those queued or running; then it stops them (their parts stay).
func (m *Manager) waitMixes() {
	m.mixMu.Lock()
	m.mixStopped = true
	cancel := m.mixCancel
	m.mixMu.Unlock()
	done := make(chan struct{})
	go func() { m.mixing.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(mixStopWait):
		cancel()
		<-done
	}
}

// putRecording hands the mixed file to the recording store.
func (m *Manager) putRecording(key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return m.Recordings.Put(key, f)
}

// storeRecording mixes a call's finished recordings (parts) into one file,
// stores it and then its key and duration on the log. The parts are
// removed then, or when they cannot be mixed (logged; the recording is
// lost), but kept when Stop interrupted the mix (ctx ended): the next
// start mixes them.
func (m *Manager) storeRecording(ctx context.Context, orgID, logID uuid.UUID, parts []string) {
	defer func() {
		if ctx.Err() != nil {
			m.Log.Info("a call's recording is left to mix at the next start", "call_log_id", logID)
			return
		}
		for _, p := range parts {
			_ = os.Remove(p)
		}
	}()
	started := time.Now()
	key := RecordingKey(orgID, logID)
	mixed := filepath.Join(m.RecordingWork, orgID.String(), logID.String()+"-mixed.ogg")
	defer os.Remove(mixed)
	mctx, cancel := context.WithTimeout(ctx, mixLimit)
	defer cancel()
	d, err := media.MixRecordings(mctx, mixed, parts...)
	if errors.Is(err, media.ErrNoAudio) {
		m.Log.Info("a call's recording holds no audio; none is stored", "call_log_id", logID)
		return
	}
	if err != nil {
		m.Log.Warn("mixing a call's recording failed", "call_log_id", logID, "error", err)
		return
	}
	if err := m.putRecording(key, mixed); err != nil {
		m.Log.Error("storing a call's recording failed", "call_log_id", logID, "error", err)
		return
	}
	err = m.Client.CallLog.UpdateOneID(logID).SetRecordingStorageKey(key).
		SetRecordingDuration(int(d.Round(time.Second) / time.Second)).Exec(mctx)
	if err != nil {
		m.Log.Error("storing a call's recording failed", "call_log_id", logID, "error", err)
		return
	}
	m.Log.Debug("call recording stored", "call_log_id", logID, "took", time.Since(started))
}

// partName is a recorded leg's file under RecordingWork/<org id>/:
// <call log id>-<who>-<8 hex>.ogg (see liveCall.record).
var partName = regexp.MustCompile(`^([0-9a-f-]{36})-(caller|agent)-[0-9a-f]{8}\.ogg$`)

// recoverRecordings mixes the recorded legs a previous run of this node
// left in RecordingWork (it stopped before mixing them: a crash, a kill)
// for calls whose log has ended and has no recording yet; parts of logs
// that are gone or already have one are removed. Parts of a log still
// open are left: the call is not this node's any more (it just started),
// and its log is ended by the orphan sweep, the next start mixes them.
func (m *Manager) recoverRecordings(ctx context.Context) {
	if m.Recordings == nil || m.RecordingWork == "" {
		return
	}
	orgDirs, err := os.ReadDir(m.RecordingWork)
	if err != nil {
		if !os.IsNotExist(err) {
			m.Log.Warn("reading the recordings' work directory failed", "error", err)
		}
		return
	}
	for _, d := range orgDirs {
		orgID, err := uuid.Parse(d.Name())
		if err != nil || !d.IsDir() {
			continue
		}
		for logID, parts := range m.leftParts(filepath.Join(m.RecordingWork, d.Name())) {
			m.recoverRecording(ctx, orgID, logID, parts)
		}
	}
}

// leftParts lists dir's recorded legs by call log (and removes mixes a
// stop interrupted).
func (m *Manager) leftParts(dir string) map[uuid.UUID][]string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		m.Log.Warn("reading the recordings' work directory failed", "error", err)
		return nil
	}
	out := map[uuid.UUID][]string{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "-mixed.ogg") {
			_ = os.Remove(filepath.Join(dir, name))
			continue
		}
		sub := partName.FindStringSubmatch(name)
		if sub == nil {
			continue
		}
		if id, err := uuid.Parse(sub[1]); err == nil {
			out[id] = append(out[id], filepath.Join(dir, name))
		}
	}
	return out
}

func (m *Manager) recoverRecording(ctx context.Context, orgID, logID uuid.UUID, parts []string) {
	l, err := m.Client.CallLog.Get(viewer.SystemContext(ctx, orgID), logID)
	switch {
	case err != nil && !ent.IsNotFound(err):
		m.Log.Warn("recovering a call's recording failed", "call_log_id", logID, "error", err)
	case err != nil || l.RecordingStorageKey != "":
		for _, p := range parts {
			_ = os.Remove(p)
		}
	case l.EndedAt != nil:
		m.Log.Info("mixing a recording left by an earlier run", "call_log_id", logID, "parts", len(parts))
		m.mixLater(orgID, logID, parts)
	}
}
