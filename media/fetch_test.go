package media_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/ent/viewer"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
	"switchboard/kv"
	"switchboard/media"
	"switchboard/provider/providertest"
	"switchboard/secrets"
	"switchboard/worker"
)

// fetchEnv is one organization with an account on the fake platform and a
// contact, a fetcher, and its task queue.
type fetchEnv struct {
	f       *media.Fetcher
	fake    *providertest.Fake
	client  *ent.Client
	org     uuid.UUID
	ctx     context.Context // the organization's system viewer
	contact uuid.UUID
	kv      *kv.Store
	prefix  string
}

var prefixSeq atomic.Int64

func newFetchEnv(t *testing.T) *fetchEnv {
	t.Helper()
	ctx := context.Background()
	db := testkit.OpenDB(t)
	store, err := kv.Open(ctx, testenv.RedisURL(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	box, err := secrets.NewBox("media-test-key")
	if err != nil {
		t.Fatal(err)
	}
	e := &fetchEnv{
		fake: providertest.New(t), client: db.Client, kv: store,
		prefix: fmt.Sprintf("%s-media%d", testenv.Namespace(), prefixSeq.Add(1)),
	}
	t.Cleanup(e.dropQueues)
	e.org, _ = testkit.NewOrg(t, db.Client, "Acme")
	e.ctx = viewer.SystemContext(ctx, e.org)
	e.contact = mustAccountAndContact(t, e.ctx, db.Client, box, providertest.PhoneID)
	e.f = &media.Fetcher{
		Client: db.Client, Provider: e.fake.Client(), Secrets: box, Store: media.New(t.TempDir()),
		Tasks: worker.NewClient(store.ConnOpt(), e.prefix), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	t.Cleanup(func() { _ = e.f.Tasks.Close() })
	return e
}

func (e *fetchEnv) dropQueues() {
	in := asynq.NewInspector(e.kv.ConnOpt())
	defer in.Close()
	for q := range maps.Keys(worker.DefaultQueues()) {
		_ = in.DeleteQueue(worker.QueueName(e.prefix, q), true)
	}
}

// mustAccountAndContact creates the account "Main" on the fake's phone
// number and a contact, in the organization of ctx.
func mustAccountAndContact(t *testing.T, ctx context.Context, c *ent.Client, box *secrets.Box, phoneID string) uuid.UUID {
	t.Helper()
	err := c.Account.Create().SetName("Main").SetPhoneID(phoneID).SetBusinessID(providertest.BusinessID).
		SetAccessTokenEncrypted(box.Seal([]byte(providertest.AccessToken))).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := c.Contact.Create().SetPhoneNumber("15551230001").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ct.ID
}

// message stores a message of the contact; edit adjusts the defaults (an
// incoming message of account Main).
func (e *fetchEnv) message(t *testing.T, typ string, content map[string]any, edit ...func(*ent.MessageCreate)) *ent.Message {
	t.Helper()
	create := e.client.Message.Create().SetContactID(e.contact).SetDirection(message.DirectionIncoming).
		SetMessageType(typ).SetContent(content).SetStatus(message.StatusDelivered).SetChatAccount("Main").
		SetChatMessageID("wamid." + uuid.NewString())
	if mt, _ := content["mime_type"].(string); mt != "" {
		create.SetMediaMimeType(mt)
	}
	if fn, _ := content["filename"].(string); fn != "" {
		create.SetMediaFilename(fn)
	}
	for _, fn := range edit {
		fn(create)
	}
	m, err := create.Save(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (e *fetchEnv) reload(t *testing.T, id uuid.UUID) *ent.Message {
	t.Helper()
	m, err := e.client.Message.Get(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stored reads back the file of a message's media_url.
func (e *fetchEnv) stored(t *testing.T, m *ent.Message) []byte {
	t.Helper()
	key, ok := media.KeyFromURL(m.MediaURL)
	if !ok {
		t.Fatalf("media_url %q is not a media path", m.MediaURL)
	}
	f, err := e.f.Store.Open(e.org, key)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return b
}

var jpeg = append([]byte{0xff, 0xd8, 0xff, 0xe0}, bytes.Repeat([]byte("cat"), 100)...)

func TestFetchStoresMedia(t *testing.T) {
	e := newFetchEnv(t)
	e.fake.AddMedia("MEDIA-IMG", "image/jpeg", jpeg)
	e.fake.AddMedia("MEDIA-DOC", "application/pdf", []byte("%PDF-1.4 invoice"))
	e.fake.AddMedia("MEDIA-OGG", "audio/ogg", []byte("OggS voice note"))

	for _, tc := range []struct {
		name, typ    string
		content      map[string]any
		data         []byte
		wantMIME     string
		wantExt      string
		wantFilename string // "" means the stored file's name
	}{
		{"Image", "image", map[string]any{"id": "MEDIA-IMG", "mime_type": "image/jpeg", "caption": "a cat"}, jpeg, "image/jpeg", ".jpg", ""},
		{"DocumentKeepsItsName", "document", map[string]any{"id": "MEDIA-DOC", "mime_type": "application/pdf", "filename": "invoice.pdf"},
			[]byte("%PDF-1.4 invoice"), "application/pdf", ".pdf", "invoice.pdf"},
		{"TypeFromPlatformWhenMissing", "audio", map[string]any{"id": "MEDIA-OGG"}, []byte("OggS voice note"), "audio/ogg", ".ogg", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := e.message(t, tc.typ, tc.content)
			if err := e.f.Fetch(context.Background(), e.org, m.ID); err != nil {
				t.Fatal(err)
			}
			got := e.reload(t, m.ID)
			if !strings.HasPrefix(got.MediaURL, media.URLPrefix+e.org.String()+"/") || !strings.HasSuffix(got.MediaURL, tc.wantExt) {
				t.Fatalf("media_url %q", got.MediaURL)
			}
			if !bytes.Equal(e.stored(t, got), tc.data) {
				t.Fatal("stored bytes differ from the platform's")
			}
			wantName := tc.wantFilename
			if wantName == "" {
				wantName = filepath.Base(got.MediaURL)
			}
			if got.MediaMimeType != tc.wantMIME || got.MediaFilename != wantName {
				t.Fatalf("mime %q filename %q, want %q %q", got.MediaMimeType, got.MediaFilename, tc.wantMIME, wantName)
			}
		})
	}

	t.Run("UsesTheAccountToken", func(t *testing.T) {
		reqs := e.fake.Find(http.MethodGet, "/MEDIA-IMG")
		if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+providertest.AccessToken {
			t.Fatalf("media info requests: %+v", reqs)
		}
	})
	t.Run("SecondFetchDoesNothing", func(t *testing.T) {
		m := e.message(t, "image", map[string]any{"id": "MEDIA-IMG"})
		if err := e.f.Fetch(context.Background(), e.org, m.ID); err != nil {
			t.Fatal(err)
		}
		first := e.reload(t, m.ID).MediaURL
		before := len(e.fake.Requests())
		if err := e.f.Fetch(context.Background(), e.org, m.ID); err != nil {
			t.Fatal(err)
		}
		if n := len(e.fake.Requests()); n != before || e.reload(t, m.ID).MediaURL != first {
			t.Fatalf("second fetch made %d requests, media_url %q → %q", n-before, first, e.reload(t, m.ID).MediaURL)
		}
	})
}

func TestFetchSkips(t *testing.T) {
	e := newFetchEnv(t)
	e.fake.AddMedia("MEDIA-IMG", "image/jpeg", jpeg)
	other, _ := testkit.NewOrg(t, e.client, "Other")
	for _, tc := range []struct {
		name string
		typ  string
		org  func(m *ent.Message) uuid.UUID
		edit func(*ent.MessageCreate)
	}{
		{name: "Text", typ: "text"},
		{name: "Outgoing", typ: "image", edit: func(c *ent.MessageCreate) { c.SetDirection(message.DirectionOutgoing) }},
		{name: "AlreadyStored", typ: "image", edit: func(c *ent.MessageCreate) { c.SetMediaURL("/api/media/x") }},
		{name: "AccountGone", typ: "image", edit: func(c *ent.MessageCreate) { c.SetChatAccount("Removed") }},
		{name: "OtherOrganization", typ: "image", org: func(*ent.Message) uuid.UUID { return other }},
		{name: "UnknownMessage", typ: "image", org: func(*ent.Message) uuid.UUID { return e.org }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edits []func(*ent.MessageCreate)
			if tc.edit != nil {
				edits = append(edits, tc.edit)
			}
			m := e.message(t, tc.typ, map[string]any{"id": "MEDIA-IMG", "body": "hi"}, edits...)
			org, id := e.org, m.ID
			if tc.org != nil {
				org = tc.org(m)
			}
			if tc.name == "UnknownMessage" {
				id = uuid.New()
			}
			before := e.reload(t, m.ID).MediaURL
			if err := e.f.Fetch(context.Background(), org, id); err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			if n := len(e.fake.Requests()); n != 0 {
				t.Fatalf("%d platform requests", n)
			}
			if after := e.reload(t, m.ID).MediaURL; after != before {
				t.Fatalf("media_url changed %q → %q", before, after)
			}
		})
	}
}

func TestFetchFailures(t *testing.T) {
	e := newFetchEnv(t)
	e.fake.AddMedia("MEDIA-BIG", "video/mp4", bytes.Repeat([]byte{1}, 64))
	e.fake.AddMedia("MEDIA-DOWN", "image/jpeg", jpeg)
	unavailable := providertest.GraphError(http.StatusInternalServerError, 2, "Service temporarily unavailable", "")
	for _, tc := range []struct {
		name      string
		mediaID   string
		maxBytes  int64
		script    []providertest.Response // answers to the media info request
		permanent bool
	}{
		// More 500s than the client retries in-process: the task retries.
		{name: "PlatformDownIsRetried", mediaID: "MEDIA-DOWN",
			script: []providertest.Response{unavailable, unavailable, unavailable, unavailable}},
		{name: "ExpiredMediaIsPermanent", mediaID: "MEDIA-EXPIRED", permanent: true},
		{name: "AnnouncedTooLargeIsPermanent", mediaID: "MEDIA-BIG", maxBytes: 32, permanent: true},
		// The size is not announced in the info: the download stops at the cap.
		{name: "DownloadTooLargeIsPermanent", mediaID: "MEDIA-BIG", maxBytes: 32, permanent: true,
			script: []providertest.Response{providertest.JSON(http.StatusOK, map[string]any{
				"url": e.fake.URL + providertest.DownloadPath + "?mid=MEDIA-BIG", "mime_type": "video/mp4", "id": "MEDIA-BIG",
			})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.f.MaxBytes = tc.maxBytes
			e.fake.Script("GET /{id}", tc.script...)
			m := e.message(t, "video", map[string]any{"id": tc.mediaID})
			err := e.f.Fetch(context.Background(), e.org, m.ID)
			if err == nil || errors.Is(err, asynq.SkipRetry) != tc.permanent {
				t.Fatalf("Fetch: %v, want permanent=%v", err, tc.permanent)
			}
			if got := e.reload(t, m.ID).MediaURL; got != "" {
				t.Fatalf("media_url %q after a failure", got)
			}
			if files := storedFiles(t, e.f.Store, e.org); len(files) != 0 {
				t.Fatalf("files left behind: %v", files)
			}
		})
	}
	if n := len(e.fake.Find(http.MethodGet, providertest.DownloadPath)); n != 1 {
		t.Fatalf("%d downloads, want 1 (only where the size was not announced)", n)
	}
}

// storedFiles lists the organization's files in the store.
func storedFiles(t *testing.T, s *media.Store, org uuid.UUID) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.Dir, org.String()))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	return names
}

func TestQueueAndRecover(t *testing.T) {
	e := newFetchEnv(t)
	now := time.Now()
	recent := e.message(t, "image", map[string]any{"id": "M1"})
	old := e.message(t, "video", map[string]any{"id": "M2"}, func(c *ent.MessageCreate) { c.SetCreatedAt(now.Add(-8 * 24 * time.Hour)) })
	done := e.message(t, "audio", map[string]any{"id": "M3"}, func(c *ent.MessageCreate) { c.SetMediaURL("/api/media/x") })
	outgoing := e.message(t, "image", map[string]any{"id": "M4"}, func(c *ent.MessageCreate) { c.SetDirection(message.DirectionOutgoing) })
	text := e.message(t, "text", map[string]any{"body": "hi"})
	noID := e.message(t, "sticker", map[string]any{})

	otherOrg, _ := testkit.NewOrg(t, e.client, "Other")
	octx := viewer.SystemContext(context.Background(), otherOrg)
	box, _ := secrets.NewBox("other")
	otherContact := mustAccountAndContact(t, octx, e.client, box, "100000000000999")
	foreign, err := e.client.Message.Create().SetContactID(otherContact).SetDirection(message.DirectionIncoming).
		SetMessageType("document").SetContent(map[string]any{"id": "M5"}).SetChatAccount("Main").Save(octx)
	if err != nil {
		t.Fatal(err)
	}

	n, err := e.f.Recover(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Recover: %d, %v; want 2", n, err)
	}
	// Queueing again (a second sweep, or inbound after a sweep) is a no-op.
	if err := e.f.Queue(context.Background(), e.org, recent.ID); err != nil {
		t.Fatalf("Queue again: %v", err)
	}

	in := asynq.NewInspector(e.kv.ConnOpt())
	defer in.Close()
	queue := worker.QueueName(e.prefix, worker.QueueDefault)
	for _, tc := range []struct {
		name   string
		id     uuid.UUID
		queued bool
	}{
		{"Recent", recent.ID, true},
		{"OtherOrganization", foreign.ID, true},
		{"OlderThanAWeek", old.ID, false},
		{"AlreadyStored", done.ID, false},
		{"Outgoing", outgoing.ID, false},
		{"Text", text.ID, false},
		{"NoMediaID", noID.ID, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := in.GetTaskInfo(queue, "media:"+tc.id.String())
			if queued := err == nil; queued != tc.queued {
				t.Fatalf("queued %v (%v), want %v", queued, err, tc.queued)
			}
			if tc.queued && info.Type != media.TaskFetch {
				t.Fatalf("task type %q", info.Type)
			}
		})
	}
}
