package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"switchboard/calling/audio"
)

// audioRoutes: the organization's call audio. Hold music and ringback are
// organization settings (settings:update); IVR prompts belong to IVR
// flows, configured like the chatbot (chatbot:update) and played to any
// member who reads the flows (chatbot:read). Uploads are converted with
// ffmpeg outside any transaction.
func (a *API) audioRoutes() []Route {
	return []Route{
		{Method: post, Path: "/api/org/audio", Op: "uploadOrgAudio", Query: orgAudioQuery{}, In: fileForm{}, Out: audioData{}, Handle: a.uploadOrgAudio},
		{Method: post, Path: "/api/ivr-flows/audio", Op: "uploadIVRAudio", In: fileForm{}, Out: audioData{}, Handle: a.uploadIVRAudio},
		{Method: get, Path: "/api/ivr-flows/audio/:filename", Op: "ivrAudio", Out: rawBody{ContentType: "audio/*", Format: "binary", Description: "The audio file."}, Handle: a.serveAudio},
	}
}

func (a *API) uploadOrgAudio(c *gin.Context) (int, any, error) {
	kind := queryOf[orgAudioQuery](c).Type
	_, data, err := readUpload(c, "file", audio.MaxBytes)
	if err != nil {
		return 0, nil, err
	}
	f, err := a.Audio.UploadOrgAudio(ctx(c), kind, data)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, audioData{Filename: f.Name, Type: kind, MimeType: f.MimeType, Size: f.Size}, nil
}

func (a *API) uploadIVRAudio(c *gin.Context) (int, any, error) {
	_, data, err := readUpload(c, "file", audio.MaxBytes)
	if err != nil {
		return 0, nil, err
	}
	f, err := a.Audio.UploadIVRAudio(ctx(c), data)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, audioData{Filename: f.Name, MimeType: f.MimeType, Size: f.Size}, nil
}

// serveAudio answers with a stored audio file of the viewer's
// organization (IVR prompts, hold music, ringback), with Range requests.
func (a *API) serveAudio(c *gin.Context) (int, any, error) {
	name := c.Param("filename")
	f, err := a.Audio.Store.Open(viewerOf(c).OrgID, name)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	h := c.Writer.Header()
	h.Set("Content-Type", audio.MimeType)
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", "inline")
	// A name always holds the same bytes.
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	http.ServeContent(c.Writer, c.Request, name, info.ModTime(), f)
	c.Writer.WriteHeaderNow()
	return http.StatusOK, nil, nil
}
