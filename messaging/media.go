package messaging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gabriel-vasile/mimetype"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
	"switchboard/media"
	"switchboard/netguard"
)

// Media kinds of media messages and template headers.
const (
	KindImage    = "image"
	KindVideo    = "video"
	KindAudio    = "audio"
	KindDocument = "document"
)

// MaxUploadBytes is the largest file any media message takes (a document).
const MaxUploadBytes = 100 << 20

// mediaRule is a row of the spec's Limits table: the content types a kind
// accepts, checked on the sniffed content, and its size limit.
type mediaRule struct {
	types    []string
	label    string
	maxBytes int64
}

// mediaRules are the spec's upload limits. Documents also accept the
// Office Open XML forms of DOC, XLS and PPT (docx, xlsx, pptx), which the
// platform takes as documents too.
var mediaRules = map[string]mediaRule{
	KindImage: {types: []string{"image/jpeg", "image/png"}, label: "JPEG or PNG", maxBytes: 5 << 20},
	KindVideo: {types: []string{"video/mp4", "video/3gpp"}, label: "MP4 or 3GPP", maxBytes: 16 << 20},
	KindAudio: {types: []string{"audio/aac", "audio/mpeg", "audio/ogg"}, label: "AAC, MP3 or OGG", maxBytes: 16 << 20},
	KindDocument: {types: []string{
		"application/pdf", "application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation",
	}, label: "PDF, DOC, XLS or PPT", maxBytes: MaxUploadBytes},
}

// Upload is a file given with a request. Content is read from its start.
type Upload struct {
	Filename string
	Content  io.ReadSeeker
	Size     int64
}

// MediaInput is a media message: a file of Kind (image, video, audio or
// document; default image) with an optional caption (images and videos).
type MediaInput struct {
	ContactID uuid.UUID
	Kind      string
	Caption   string
	Account   string
	File      Upload
}

// maxCaption is the platform's caption limit.
const maxCaption = 1024

// SendMedia checks the file against the kind's limits by sniffing its
// content (the file name and the client's content type are not trusted),
// then, once the contact, its service window and the account are checked,
// saves it to the media store, stores the message and queues it; the
// worker uploads the file to the platform. Errors: invalid (kind, caption,
// a file of the wrong type or over the limit, a closed service window, no
// account), not_found (contact).
func (s *Service) SendMedia(ctx context.Context, in MediaInput) (*ent.Message, error) {
	kind := strings.TrimSpace(in.Kind)
	if kind == "" {
		kind = KindImage
	}
	if _, ok := mediaRules[kind]; !ok {
		return nil, apperr.Invalidf("type must be image, video, audio or document")
	}
	caption := strings.TrimSpace(in.Caption)
	if caption != "" && kind != KindImage && kind != KindVideo {
		return nil, apperr.Invalidf("caption is allowed for images and videos only")
	}
	if err := valid.Check("caption", caption, maxCaption); err != nil {
		return nil, err
	}
	mimeType, err := checkUpload(kind, "file", in.File)
	if err != nil {
		return nil, err
	}
	content := map[string]any{}
	preview := "[" + kind + "]"
	if caption != "" {
		content["body"] = caption
		preview = caption
	}
	return s.sendFreeForm(ctx, in.ContactID, in.Account, draft{
		kind: kind, content: content, preview: preview,
		saveMedia: func(ctx context.Context) (*storedMedia, error) { return s.save(ctx, kind, in.File, mimeType) },
	})
}

// saveUpload sniffs u, checks it against kind's rule and saves it to the
// organization's media store. field names the input in messages.
func (s *Service) saveUpload(ctx context.Context, kind, field string, u Upload) (*storedMedia, error) {
	mimeType, err := checkUpload(kind, field, u)
	if err != nil {
		return nil, err
	}
	return s.save(ctx, kind, u, mimeType)
}

// save writes a checked upload to the organization's media store.
func (s *Service) save(ctx context.Context, kind string, u Upload, mimeType string) (*storedMedia, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, apperr.New(apperr.Unauthenticated, "authentication required")
	}
	if s.Media == nil {
		return nil, apperr.New(apperr.Internal, "the media store is not configured")
	}
	if _, err := u.Content.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("messaging: rewinding upload: %w", err)
	}
	key, _, err := s.Media.Save(v.OrgID, u.Content, mimeType)
	if err != nil {
		return nil, err
	}
	return &storedMedia{url: media.URL(key), mimeType: mimeType, filename: uploadName(u.Filename, kind, mimeType)}, nil
}

// checkUpload returns the sniffed content type of u when kind accepts it
// and its size is within kind's limit. Errors: invalid.
func checkUpload(kind, field string, u Upload) (string, error) {
	rule := mediaRules[kind]
	switch {
	case u.Content == nil || u.Size == 0:
		return "", apperr.Invalidf("%s is required and must not be empty", field)
	case u.Size > rule.maxBytes:
		return "", apperr.Invalidf("%s is too large for %s: at most %d MB", field, article(kind), rule.maxBytes>>20)
	}
	if _, err := u.Content.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("messaging: rewinding upload: %w", err)
	}
	mt, err := mimetype.DetectReader(u.Content)
	if err != nil {
		return "", fmt.Errorf("messaging: sniffing upload: %w", err)
	}
	for _, t := range rule.types {
		if mt.Is(t) {
			return t, nil
		}
	}
	return "", apperr.Invalidf("%s content is %s, but %s must be %s", field, mt.String(), article(kind), rule.label)
}

func article(kind string) string {
	if kind == KindImage || kind == KindAudio {
		return "an " + kind
	}
	return "a " + kind
}

// uploadName keeps the base of the client's file name (documents show it
// to the contact), or makes one from the kind and type.
func uploadName(name, kind, mimeType string) string {
	name = strings.TrimSpace(filepath.Base(strings.ReplaceAll(name, "\\", "/")))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "" || name == "." || name == "/" {
		ext := ""
		if mt := mimetype.Lookup(mimeType); mt != nil {
			ext = mt.Extension()
		}
		return kind + ext
	}
	return truncate(name, 255)
}

// download fetches a header_media_url through the SSRF guard into a
// temporary file, refusing more than kind's limit. The caller removes the
// file. Errors: invalid (a bad or refused URL, an error answer, too large).
func (s *Service) download(ctx context.Context, kind, raw string) (*os.File, Upload, error) {
	const field = "header_media_url"
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, Upload{}, apperr.Invalidf("%s must be an absolute http or https URL", field)
	}
	if s.Fetch == nil {
		return nil, Upload{}, apperr.New(apperr.Internal, "media downloads are not configured")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, Upload{}, apperr.Invalidf("%s must be an absolute http or https URL", field)
	}
	resp, err := s.Fetch.Do(req)
	if err != nil {
		return nil, Upload{}, downloadError(field, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, Upload{}, apperr.Invalidf("%s answered HTTP %d", field, resp.StatusCode)
	}
	limit := mediaRules[kind].maxBytes
	f, err := os.CreateTemp("", "switchboard-header-*")
	if err != nil {
		return nil, Upload{}, err
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, Upload{}, downloadError(field, err)
	}
	return f, Upload{Filename: lastSegment(u), Content: f, Size: n}, nil
}

// lastSegment is the last segment of u's path, the downloaded file's name.
func lastSegment(u *url.URL) string {
	if i := strings.LastIndex(u.Path, "/"); i >= 0 {
		return u.Path[i+1:]
	}
	return u.Path
}

// downloadError explains a failed download in the SSRF guard's public
// words (never what a host name resolved to); err stays the cause.
func downloadError(field string, err error) error {
	switch {
	case errors.Is(err, netguard.ErrBlockedAddress), errors.Is(err, netguard.ErrInvalidURL),
		errors.Is(err, netguard.ErrTooManyRedirects):
		return &apperr.Error{Code: apperr.Invalid, Message: field + ": " + netguard.PublicMessage(err), Err: err}
	case errors.Is(err, netguard.ErrResponseTooLarge):
		return &apperr.Error{Code: apperr.Invalid, Message: field + ": the file is too large", Err: err}
	}
	return &apperr.Error{Code: apperr.Invalid, Message: field + " could not be downloaded: " + netguard.PublicMessage(err), Err: err}
}
