package templates

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"

	"switchboard/apperr"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// Header sample limits of the platform: images JPEG or PNG up to 5 MB,
// videos MP4 up to 16 MB, documents PDF up to 100 MB (the types its
// Resumable Upload API takes).
const (
	MaxImageBytes    = 5 << 20
	MaxVideoBytes    = 16 << 20
	MaxDocumentBytes = 100 << 20
	// MaxMediaBytes is the largest header sample of any type.
	MaxMediaBytes = MaxDocumentBytes
)

// mediaLimits maps the detected type to its header type and size limit.
var mediaLimits = map[string]struct {
	header string
	max    int
}{
	"image/jpeg":      {"IMAGE", MaxImageBytes},
	"image/png":       {"IMAGE", MaxImageBytes},
	"video/mp4":       {"VIDEO", MaxVideoBytes},
	"application/pdf": {"DOCUMENT", MaxDocumentBytes},
}

// UploadedMedia is a header sample at the platform: Handle goes into a
// media template's header_content.
type UploadedMedia struct {
	Handle   string
	Filename string
	MimeType string
	Size     int
	// HeaderType is the header the file fits: IMAGE, VIDEO or DOCUMENT.
	HeaderType string
}

// UploadMedia uploads a header sample for the account's templates with
// the platform's Resumable Upload API (an upload session on the
// account's app, then the bytes) and returns the file handle. The type is
// read from the content (not the name): JPEG or PNG up to 5 MB, MP4 up to
// 16 MB, PDF up to 100 MB. Errors: invalid (unknown account, no app_id,
// empty, wrong type or too large file, the platform's refusal),
// unavailable.
func (s *Service) UploadMedia(ctx context.Context, accountName, filename string, data []byte) (*UploadedMedia, error) {
	accountName = strings.TrimSpace(accountName)
	if accountName == "" {
		return nil, apperr.Invalidf("account is required")
	}
	if _, err := valid.Text("account", accountName, 200); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, apperr.Invalidf("file is empty")
	}
	mime := http.DetectContentType(data)
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	lim, ok := mediaLimits[mime]
	if !ok {
		return nil, apperr.Invalidf("file must be a JPEG or PNG image, an MP4 video or a PDF document (got %s)", mime)
	}
	if len(data) > lim.max {
		return nil, apperr.Invalidf("a %s header sample is at most %d MB (this %s has %.1f MB)", lim.header, lim.max>>20, mime, float64(len(data))/(1<<20))
	}
	filename = strings.TrimSpace(filepath.Base(strings.ReplaceAll(filename, "\\", "/")))
	if filename == "" || filename == "." || filename == "/" {
		filename = "sample"
	}
	if f, err := valid.Text("filename", filename, 255); err != nil {
		return nil, err
	} else {
		filename = f
	}
	a, acc, err := s.providerAccount(ctx, accountName)
	if err != nil {
		return nil, err
	}
	if a.AppID == "" {
		return nil, apperr.Invalidf("account %q has no app_id: the platform's upload needs the app's id", accountName)
	}
	h, err := s.Provider.UploadResumable(ctx, acc, a.AppID, filename, mime, data)
	if err != nil {
		return nil, provider.AppError(err)
	}
	return &UploadedMedia{Handle: h, Filename: filename, MimeType: mime, Size: len(data), HeaderType: lim.header}, nil
}
