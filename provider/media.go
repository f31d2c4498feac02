package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
)

// UploadMedia uploads a file for later sending and returns its media id
// (multipart POST /{phone_id}/media with messaging_product=whatsapp, type
// and file). mimeType is the file's MIME type, such as "image/jpeg".
//
// When r is an io.ReadSeeker (a file, a bytes.Reader) the upload streams from
// it and can be retried; any other reader is read into memory first. An
// upload is safe to repeat: a duplicate only leaves an unused media id that
// the platform expires.
//
// Errors: ErrInvalid for a missing name or type; *Error for a Graph error
// answer (unsupported type, too large); ErrUnexpectedResponse when the answer
// has no id; a transport or read error otherwise.
func (c *Client) UploadMedia(ctx context.Context, acc Account, filename, mimeType string, r io.Reader) (string, error) {
	if filename == "" || mimeType == "" {
		return "", fmt.Errorf("%w: upload needs a file name and a MIME type", ErrInvalid)
	}
	u, err := c.endpoint(acc, nil, acc.PhoneID, "media")
	if err != nil {
		return "", err
	}
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	_ = mw.WriteField("messaging_product", "whatsapp")
	_ = mw.WriteField("type", mimeType)
	ph := textproto.MIMEHeader{}
	ph.Set("Content-Disposition", multipart.FileContentDisposition("file", filename))
	ph.Set("Content-Type", mimeType)
	if _, err := mw.CreatePart(ph); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	headLen := head.Len()
	_ = mw.Close() // appends the closing boundary after the part header
	all := head.Bytes()
	prefix, suffix := all[:headLen:headLen], all[headLen:]

	file, size, err := replayable(r)
	if err != nil {
		return "", fmt.Errorf("provider: reading upload: %w", err)
	}
	req := &request{
		method:      http.MethodPost,
		url:         u,
		contentType: mw.FormDataContentType(),
		length:      int64(len(prefix)) + size + int64(len(suffix)),
		newBody: func() (io.Reader, error) {
			f, err := file()
			if err != nil {
				return nil, err
			}
			return io.MultiReader(bytes.NewReader(prefix), f, bytes.NewReader(suffix)), nil
		},
		idempotent: true,
	}
	var a struct {
		ID string `json:"id"`
	}
	if err := c.doJSON(ctx, acc, req, &a); err != nil {
		return "", err
	}
	if a.ID == "" {
		return "", fmt.Errorf("%w: %s: no media id", ErrUnexpectedResponse, req.what)
	}
	return a.ID, nil
}

// replayable returns a function that yields r's content from its current
// position on every call, and the content's size.
func replayable(r io.Reader) (func() (io.Reader, error), int64, error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, 0, err
		}
		end, err := rs.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, 0, err
		}
		size := end - start
		return func() (io.Reader, error) {
			if _, err := rs.Seek(start, io.SeekStart); err != nil {
				return nil, err
			}
			return io.LimitReader(rs, size), nil
		}, size, nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, err
	}
	return bytesBody(b), int64(len(b)), nil
}

// MediaInfo describes an uploaded or received media object.
type MediaInfo struct {
	ID       string
	URL      string // short-lived download URL; fetch it with DownloadMedia
	MimeType string
	SHA256   string
	FileSize int64
}

// flexInt accepts a JSON number or a string of digits: the platform has
// returned file_size both ways.
type flexInt int64

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("file_size %s: %w", b, err)
	}
	*f = flexInt(n)
	return nil
}

// MediaInfo returns the download URL and metadata of a media id
// (GET /{media_id}).
//
// Errors: ErrInvalid for an empty id; *Error for a Graph error answer (an
// unknown or expired id); ErrUnexpectedResponse when the answer has no URL;
// a transport error otherwise.
func (c *Client) MediaInfo(ctx context.Context, acc Account, mediaID string) (*MediaInfo, error) {
	u, err := c.endpoint(acc, nil, mediaID)
	if err != nil {
		return nil, err
	}
	r := getRequest(u)
	var a struct {
		ID       string  `json:"id"`
		URL      string  `json:"url"`
		MimeType string  `json:"mime_type"`
		SHA256   string  `json:"sha256"`
		FileSize flexInt `json:"file_size"`
	}
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	if a.URL == "" {
		return nil, fmt.Errorf("%w: %s: no url", ErrUnexpectedResponse, r.what)
	}
	if a.ID == "" {
		a.ID = mediaID
	}
	return &MediaInfo{ID: a.ID, URL: a.URL, MimeType: a.MimeType, SHA256: a.SHA256, FileSize: int64(a.FileSize)}, nil
}

// mediaHostSuffixes are the platform's hosts that serve media downloads
// (lookaside.fbsbx.com today). The bearer token is sent only to them or to
// the configured base URL's host (a test fake, a proxy).
var mediaHostSuffixes = []string{".fbsbx.com", ".facebook.com", ".fbcdn.net", ".whatsapp.net", ".whatsapp.com"}

func (c *Client) mediaHostAllowed(u *url.URL) bool {
	if c.base != nil && strings.EqualFold(u.Host, c.base.Host) && u.Scheme == c.base.Scheme {
		return true
	}
	if u.Scheme != "https" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, s := range mediaHostSuffixes {
		if host == s[1:] || strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// DownloadMedia writes the media at mediaURL (from MediaInfo) to w and
// returns the number of bytes written. It sends the access token, so it
// refuses URLs outside the platform's media hosts and the base URL's host.
// At most maxBytes (which must be positive) are written: a larger file is
// refused, by its Content-Length before any byte is read when announced.
// Failures before the first byte are retried; a failure mid-body is not,
// since w has already received part of the file.
//
// Errors: ErrInvalid for a bad URL, a refused host or a non-positive
// maxBytes; ErrMediaTooLarge past maxBytes; *Error for an error answer (an
// expired URL); a transport or write error otherwise.
func (c *Client) DownloadMedia(ctx context.Context, acc Account, mediaURL string, w io.Writer, maxBytes int64) (int64, error) {
	if maxBytes <= 0 {
		return 0, fmt.Errorf("%w: download needs a positive byte limit", ErrInvalid)
	}
	if c.baseErr != nil {
		return 0, c.baseErr
	}
	u, err := url.Parse(mediaURL)
	if err != nil || u.Host == "" {
		return 0, fmt.Errorf("%w: media url is not absolute", ErrInvalid)
	}
	if !c.mediaHostAllowed(u) {
		return 0, fmt.Errorf("%w: refusing to send the access token to %s://%s", ErrInvalid, u.Scheme, u.Host)
	}
	r := getRequest(u)
	r.what = "GET " + u.Host + u.EscapedPath()
	resp, done, err := c.send(ctx, acc, r)
	if err != nil {
		return 0, err
	}
	defer done()
	if resp.ContentLength > maxBytes {
		return 0, fmt.Errorf("%w: %d bytes announced, limit %d", ErrMediaTooLarge, resp.ContentLength, maxBytes)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, maxBytes))
	if err != nil {
		return n, fmt.Errorf("provider: %s: %w", r.what, err)
	}
	var one [1]byte
	if k, _ := io.ReadFull(resp.Body, one[:]); k > 0 {
		return n, fmt.Errorf("%w: more than %d bytes", ErrMediaTooLarge, maxBytes)
	}
	if ctx.Err() != nil {
		return n, fmt.Errorf("provider: %s: %w", r.what, ctx.Err())
	}
	return n, nil
}
