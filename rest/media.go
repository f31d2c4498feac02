package rest

import (
	"errors"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"switchboard/apperr"
	"switchboard/media"
)

// mediaRoutes serve stored message media to the members of the
// organization that owns them.
func (a *API) mediaRoutes() []Route {
	return []Route{
		{Method: get, Path: media.URLPrefix + "*key", Op: "media", Out: rawBody{ContentType: "*/*", Format: "binary", Description: "The media file."}, Handle: a.serveMedia},
	}
}

// inlineTypes are shown by browsers in place; anything else (SVG with its
// scripts, HTML, documents) is downloaded.
var inlineTypes = map[string]bool{
	"image/jpeg": true, "image/png": true, "image/webp": true, "image/gif": true,
}

// serveMedia answers GET /api/media/<key> with the file's bytes, with
// Range and conditional requests. A key of another organization, unknown
// or malformed (traversal included) is not found.
func (a *API) serveMedia(c *gin.Context) (int, any, error) {
	key := strings.TrimPrefix(c.Param("key"), "/")
	f, err := a.Media.Open(viewerOf(c).OrgID, key)
	if errors.Is(err, media.ErrNotFound) {
		return 0, nil, apperr.NotFoundf("media not found")
	}
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	name := path.Base(key)
	contentType := mime.TypeByExtension(path.Ext(name))
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	h := c.Writer.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", mime.FormatMediaType(disposition(contentType), map[string]string{"filename": name}))
	// A key always names the same bytes; only the viewer's browser keeps them.
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	http.ServeContent(c.Writer, c.Request, name, info.ModTime(), f)
	// A 304 has no body: send the header now, so the envelope is not added.
	c.Writer.WriteHeaderNow()
	return http.StatusOK, nil, nil
}

func disposition(contentType string) string {
	base, _, _ := strings.Cut(contentType, ";")
	base = strings.TrimSpace(strings.ToLower(base))
	if inlineTypes[base] || strings.HasPrefix(base, "audio/") || strings.HasPrefix(base, "video/") {
		return "inline"
	}
	return "attachment"
}
