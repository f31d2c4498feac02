package rest_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"switchboard/access"
	"switchboard/calling/audio"
	"switchboard/internal/apitest"
	"switchboard/internal/testenv"
)

func toneFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "calling", "audio", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// requireFFmpeg: the test converts audio (testenv.RequireTool).
func requireFFmpeg(t testing.TB) {
	t.Helper()
	testenv.RequireTool(t, "ffmpeg")
}

func getAudio(t *testing.T, c *apitest.Client, name string) *apitest.Response {
	t.Helper()
	return c.Do(http.MethodGet, "/api/ivr-flows/audio/"+name, nil)
}

func TestOrgAudio(t *testing.T) {
	requireFFmpeg(t)
	env := apitest.New(t)
	admin := env.Admin
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	upload := func(c *apitest.Client, path, file string, data []byte) *apitest.Response {
		return uploadPhoto(t, env, c, path, "file", file, data)
	}

	res := upload(admin, "/api/org/audio?type=hold_music", "song.wav", toneFile(t, "tone.wav")).ExpectStatus(t, http.StatusOK)
	hold := res.String("data.filename")
	if res.String("data.type") != "hold_music" || res.String("data.mime_type") != "audio/ogg" || res.Number("data.size") <= 0 {
		t.Fatalf("upload: %s", res.Raw)
	}
	settings := admin.Do(http.MethodGet, "/api/org/settings", nil).ExpectStatus(t, http.StatusOK)
	if settings.String("data.settings.hold_music_file") != hold {
		t.Fatalf("settings after upload: %s", settings.Raw)
	}
	// Members who read IVR flows (Agents too) play it; it is Ogg/Opus.
	got := getAudio(t, agent, hold).ExpectStatus(t, http.StatusOK)
	if ct := got.Header.Get("Content-Type"); ct != audio.MimeType || !bytes.HasPrefix(got.Raw, []byte("OggS")) || !bytes.Contains(got.Raw, []byte("OpusHead")) {
		t.Fatalf("served: %s, %d bytes", ct, len(got.Raw))
	}

	t.Run("RingbackKeepsHoldMusic", func(t *testing.T) {
		rb := upload(admin, "/api/org/audio?type=ringback", "ring.mp3", toneFile(t, "tone.mp3")).ExpectStatus(t, http.StatusOK)
		s := admin.Do(http.MethodGet, "/api/org/settings", nil)
		if s.String("data.settings.ringback_file") != rb.String("data.filename") || s.String("data.settings.hold_music_file") != hold {
			t.Fatalf("settings: %s", s.Raw)
		}
	})
	t.Run("ReplacingRemovesTheOldFile", func(t *testing.T) {
		next := upload(admin, "/api/org/audio?type=hold_music", "next.m4a", toneFile(t, "tone.m4a")).ExpectStatus(t, http.StatusOK).String("data.filename")
		getAudio(t, admin, next).ExpectStatus(t, http.StatusOK)
		getAudio(t, admin, hold).ExpectError(t, http.StatusNotFound)
	})
	t.Run("IVRPromptsTakeFLAC", func(t *testing.T) {
		res := upload(admin, "/api/ivr-flows/audio", "prompt.flac", toneFile(t, "tone.flac")).ExpectStatus(t, http.StatusOK)
		if res.String("data.mime_type") != "audio/ogg" || res.String("data.filename") == "" {
			t.Fatalf("upload: %s", res.Raw)
		}
	})
	t.Run("ErrOtherTenant", func(t *testing.T) {
		getAudio(t, other, hold).ExpectError(t, http.StatusNotFound)
	})
	t.Run("ErrPermission", func(t *testing.T) {
		upload(agent, "/api/org/audio?type=hold_music", "a.wav", toneFile(t, "tone.wav")).ExpectError(t, http.StatusForbidden)
		upload(agent, "/api/ivr-flows/audio", "a.wav", toneFile(t, "tone.wav")).ExpectError(t, http.StatusForbidden)
	})
	for name, tc := range map[string]struct {
		path, file string
		data       []byte
	}{
		"ErrNoType":      {"/api/org/audio", "a.wav", toneFile(t, "tone.wav")},
		"ErrBadType":     {"/api/org/audio?type=voicemail", "a.wav", toneFile(t, "tone.wav")},
		"ErrNotAudio":    {"/api/org/audio?type=ringback", "a.mp3", []byte("plain text that claims to be an mp3")},
		"ErrFLACForOrg":  {"/api/org/audio?type=ringback", "a.flac", toneFile(t, "tone.flac")},
		"ErrTooLarge":    {"/api/ivr-flows/audio", "big.mp3", append([]byte("ID3"), make([]byte, audio.MaxBytes)...)},
		"ErrUndecodable": {"/api/ivr-flows/audio", "x.mp3", append([]byte{0xFF, 0xFB, 0x90, 0x00}, bytes.Repeat([]byte("noise"), 300)...)},
	} {
		t.Run(name, func(t *testing.T) {
			upload(admin, tc.path, tc.file, tc.data).ExpectError(t, http.StatusBadRequest)
		})
	}
	t.Run("ErrNoFile", func(t *testing.T) {
		sendRaw(t, env, admin, "/api/org/audio?type=ringback", "application/json", []byte(`{}`)).ExpectError(t, http.StatusBadRequest)
	})
	t.Run("ErrTraversal", func(t *testing.T) {
		for _, name := range []string{"..%2F..%2Fetc%2Fpasswd", "%2e%2e", "x.ogg"} {
			getAudio(t, admin, name).ExpectError(t, http.StatusNotFound)
		}
	})
}
