package provider_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

// onlyReader hides any Seek method, like a network stream.
type onlyReader struct{ io.Reader }

func TestUploadMedia(t *testing.T) {
	data := bytes.Repeat([]byte("\xff\xd8jpeg"), 1000)
	tests := []struct {
		name   string
		reader func() io.Reader
		script []providertest.Response
		reqs   int
	}{
		{name: "Seeker", reader: func() io.Reader { return bytes.NewReader(data) }, reqs: 1},
		{name: "Stream", reader: func() io.Reader { return onlyReader{bytes.NewReader(data)} }, reqs: 1},
		{name: "SeekerNotAtStart", reader: func() io.Reader {
			r := bytes.NewReader(append([]byte("skipped"), data...))
			_, _ = r.Seek(int64(len("skipped")), io.SeekStart)
			return r
		}, reqs: 1},
		{name: "RetryReplaysSeeker", reader: func() io.Reader { return bytes.NewReader(data) },
			script: []providertest.Response{providertest.Unavailable()}, reqs: 2},
		{name: "RetryReplaysStream", reader: func() io.Reader { return onlyReader{bytes.NewReader(data)} },
			script: []providertest.Response{providertest.Unavailable()}, reqs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			f.Script("POST /{phone}/media", tt.script...)
			id, err := c.UploadMedia(context.Background(), f.Account(), `photo "1".jpg`, "image/jpeg", tt.reader())
			if err != nil {
				t.Fatalf("UploadMedia: %v", err)
			}
			reqs := f.Requests()
			if len(reqs) != tt.reqs {
				t.Fatalf("%d requests, want %d", len(reqs), tt.reqs)
			}
			for _, r := range reqs {
				MustRequestLine(t, r, "POST", "/v21.0/"+providertest.PhoneID+"/media")
				if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data; boundary=") {
					t.Errorf("Content-Type = %q", r.Header.Get("Content-Type"))
				}
				if r.Form["messaging_product"] != "whatsapp" || r.Form["type"] != "image/jpeg" {
					t.Errorf("form = %v", r.Form)
				}
				if len(r.Files) != 1 {
					t.Fatalf("files = %+v", r.Files)
				}
				file := r.Files[0]
				if file.Field != "file" || file.Filename != `photo "1".jpg` || file.ContentType != "image/jpeg" || !bytes.Equal(file.Data, data) {
					t.Errorf("file = %s %q %s, %d bytes", file.Field, file.Filename, file.ContentType, len(file.Data))
				}
			}
			mime, stored, ok := f.Media(id)
			if !ok || mime != "image/jpeg" || !bytes.Equal(stored, data) {
				t.Errorf("fake media %q = %q, %d bytes, %v", id, mime, len(stored), ok)
			}
		})
	}
	t.Run("ErrNoType", func(t *testing.T) {
		f, c, _ := newFake(t)
		_, err := c.UploadMedia(context.Background(), f.Account(), "a.jpg", "", strings.NewReader("x"))
		if !errors.Is(err, provider.ErrInvalid) || len(f.Requests()) != 0 {
			t.Fatalf("err = %v, requests %d", err, len(f.Requests()))
		}
	})
	t.Run("ErrRejectedType", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("POST /{phone}/media", providertest.GraphError(400, 131053, "(#131053) Media upload error", "Unsupported MIME type"))
		_, err := c.UploadMedia(context.Background(), f.Account(), "a.exe", "application/x-msdownload", strings.NewReader("x"))
		var perr *provider.Error
		if !errors.As(err, &perr) || perr.Code != 131053 {
			t.Fatalf("err = %v, want code 131053", err)
		}
	})
}

func TestMediaInfo(t *testing.T) {
	data := []byte("%PDF-1.4 fake")
	sum := sha256.Sum256(data)
	t.Run("OK", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.AddMedia("1037543291543636", "application/pdf", data)
		info, err := c.MediaInfo(context.Background(), f.Account(), "1037543291543636")
		if err != nil {
			t.Fatalf("MediaInfo: %v", err)
		}
		MustRequestLine(t, MustOneRequest(t, f), "GET", "/v21.0/1037543291543636")
		want := provider.MediaInfo{ID: "1037543291543636", MimeType: "application/pdf", SHA256: hex.EncodeToString(sum[:]),
			FileSize: int64(len(data)), URL: f.URL + "/whatsapp_business/attachments/?mid=1037543291543636&ext=1700000000&hash=ATfakeHash"}
		if *info != want {
			t.Errorf("info = %+v\nwant %+v", *info, want)
		}
	})
	t.Run("FileSizeAsString", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("GET /{id}", providertest.JSON(200, map[string]any{"messaging_product": "whatsapp",
			"url": "https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=9", "mime_type": "image/jpeg",
			"sha256": "abc", "file_size": "303833", "id": "9"}))
		info, err := c.MediaInfo(context.Background(), f.Account(), "9")
		if err != nil || info.FileSize != 303833 {
			t.Fatalf("info = %+v, err = %v", info, err)
		}
	})
	t.Run("ErrUnknownID", func(t *testing.T) {
		f, c, _ := newFake(t)
		_, err := c.MediaInfo(context.Background(), f.Account(), "404404")
		var perr *provider.Error
		if !errors.As(err, &perr) || perr.Code != 100 || perr.Status != 400 {
			t.Fatalf("err = %v, want (#100)", err)
		}
	})
	t.Run("ErrEmptyID", func(t *testing.T) {
		f, c, _ := newFake(t)
		if _, err := c.MediaInfo(context.Background(), f.Account(), ""); !errors.Is(err, provider.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	})
}

func TestDownloadMedia(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100) // 1000 bytes
	const mediaID = "2621233374848975"
	streamed := func(w http.ResponseWriter, r *http.Request) {
		// Chunked, without Content-Length: the limit must be enforced while reading.
		w.Header().Set("Content-Type", "image/jpeg")
		for i := 0; i < len(data); i += 100 {
			_, _ = w.Write(data[i : i+100])
			w.(http.Flusher).Flush()
		}
	}
	tests := []struct {
		name     string
		url      func(f *providertest.Fake) string
		max      int64
		handle   http.HandlerFunc
		script   []providertest.Response
		wantN    int64
		wantErr  error
		wantCode int
		wantReqs int
	}{
		{name: "OK", max: 1 << 20, wantN: 1000, wantReqs: 1},
		{name: "ExactLimit", max: 1000, wantN: 1000, wantReqs: 1},
		{name: "TooLargeAnnounced", max: 999, wantN: 0, wantErr: provider.ErrMediaTooLarge, wantReqs: 1},
		{name: "StreamedOK", max: 1000, handle: streamed, wantN: 1000, wantReqs: 1},
		{name: "TooLargeStreamed", max: 250, handle: streamed, wantN: 250, wantErr: provider.ErrMediaTooLarge, wantReqs: 1},
		{name: "RetriedBeforeFirstByte", max: 1 << 20, script: []providertest.Response{providertest.Unavailable()}, wantN: 1000, wantReqs: 2},
		{name: "ErrExpiredURL", max: 1 << 20, url: func(f *providertest.Fake) string {
			return f.URL + "/whatsapp_business/attachments/?mid=gone"
		}, wantCode: 100, wantReqs: 1},
		{name: "ErrZeroLimit", max: 0, wantErr: provider.ErrInvalid},
		{name: "ErrForeignHost", max: 1 << 20, url: func(*providertest.Fake) string {
			return "https://attacker.example.com/whatsapp_business/attachments/?mid=1"
		}, wantErr: provider.ErrInvalid},
		{name: "ErrLookalikeHost", max: 1 << 20, url: func(*providertest.Fake) string {
			return "https://lookaside.fbsbx.com.attacker.example/x"
		}, wantErr: provider.ErrInvalid},
		{name: "ErrPlainHTTPMetaHost", max: 1 << 20, url: func(*providertest.Fake) string {
			return "http://lookaside.fbsbx.com/x"
		}, wantErr: provider.ErrInvalid},
		{name: "ErrRelativeURL", max: 1 << 20, url: func(*providertest.Fake) string { return "/x" }, wantErr: provider.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			f.AddMedia(mediaID, "image/jpeg", data)
			if tt.handle != nil {
				f.Handle("GET /whatsapp_business/attachments/", tt.handle)
			}
			f.Script("GET /whatsapp_business/attachments/", tt.script...)
			u := f.URL + "/whatsapp_business/attachments/?mid=" + mediaID + "&ext=1&hash=h"
			if tt.url != nil {
				u = tt.url(f)
			}
			var buf bytes.Buffer
			n, err := c.DownloadMedia(context.Background(), f.Account(), u, &buf, tt.max)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			case tt.wantCode != 0:
				var perr *provider.Error
				if !errors.As(err, &perr) || perr.Code != tt.wantCode {
					t.Fatalf("err = %v, want code %d", err, tt.wantCode)
				}
			case err != nil:
				t.Fatalf("DownloadMedia: %v", err)
			}
			if n != tt.wantN || int64(buf.Len()) != n {
				t.Errorf("n = %d, written %d, want %d", n, buf.Len(), tt.wantN)
			}
			if err == nil && !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("downloaded bytes differ")
			}
			reqs := f.Requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("%d requests, want %d", len(reqs), tt.wantReqs)
			}
			for _, r := range reqs {
				if r.Method != "GET" || r.Path != "/whatsapp_business/attachments/" || r.Version != "" {
					t.Errorf("request = %s %s (version %q)", r.Method, r.Path, r.Version)
				}
				if r.Header.Get("Authorization") != "Bearer "+providertest.AccessToken {
					t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
				}
			}
		})
	}
}

func TestMediaRoundTrip(t *testing.T) {
	f, c, _ := newFake(t)
	ctx, acc := context.Background(), f.Account()
	data := []byte("OggS fake voice note")
	id, err := c.UploadMedia(ctx, acc, "note.ogg", "audio/ogg", bytes.NewReader(data))
	if err != nil {
		t.Fatalf("UploadMedia: %v", err)
	}
	info, err := c.MediaInfo(ctx, acc, id)
	if err != nil {
		t.Fatalf("MediaInfo: %v", err)
	}
	if info.MimeType != "audio/ogg" || info.FileSize != int64(len(data)) {
		t.Errorf("info = %+v", info)
	}
	var buf bytes.Buffer
	if _, err := c.DownloadMedia(ctx, acc, info.URL, &buf, 1<<20); err != nil {
		t.Fatalf("DownloadMedia: %v", err)
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("round trip changed the bytes: %q", buf.Bytes())
	}
	if _, err := c.SendMessage(ctx, acc, provider.OutgoingMessage{To: "1", Media: &provider.Media{Kind: provider.MediaAudio, ID: id}}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if got := fmt.Sprint(f.Sent()); !strings.Contains(got, id) {
		t.Errorf("sent = %s, want the media id", got)
	}
}
