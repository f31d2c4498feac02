package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// BusinessProfile is the public profile of a business phone number.
type BusinessProfile struct {
	MessagingProduct  string
	Address           string
	Description       string
	Vertical          string // industry code such as PROF_SERVICES, RETAIL, HOTEL
	Email             string
	Websites          []string // never nil
	ProfilePictureURL string
	About             string
}

const profileFields = "about,address,description,email,profile_picture_url,websites,vertical"

// GetBusinessProfile returns acc's business profile
// (GET /{phone_id}/whatsapp_business_profile?fields=...; the platform answers
// {"data": [profile]}).
//
// Errors: ErrInvalid for a missing phone id; *Error for a Graph error
// answer; ErrUnexpectedResponse when data is empty; a transport error
// otherwise.
func (c *Client) GetBusinessProfile(ctx context.Context, acc Account) (*BusinessProfile, error) {
	u, err := c.endpoint(acc, url.Values{"fields": {profileFields}}, acc.PhoneID, "whatsapp_business_profile")
	if err != nil {
		return nil, err
	}
	var a struct {
		Data []struct {
			MessagingProduct  string   `json:"messaging_product"`
			Address           string   `json:"address"`
			Description       string   `json:"description"`
			Vertical          string   `json:"vertical"`
			Email             string   `json:"email"`
			Websites          []string `json:"websites"`
			ProfilePictureURL string   `json:"profile_picture_url"`
			About             string   `json:"about"`
		} `json:"data"`
	}
	r := getRequest(u)
	if err := c.doJSON(ctx, acc, r, &a); err != nil {
		return nil, err
	}
	if len(a.Data) == 0 {
		return nil, fmt.Errorf("%w: %s: no profile in data", ErrUnexpectedResponse, r.what)
	}
	d := a.Data[0]
	p := &BusinessProfile{
		MessagingProduct:  d.MessagingProduct,
		Address:           d.Address,
		Description:       d.Description,
		Vertical:          d.Vertical,
		Email:             d.Email,
		Websites:          d.Websites,
		ProfilePictureURL: d.ProfilePictureURL,
		About:             d.About,
	}
	if p.Websites == nil {
		p.Websites = []string{}
	}
	if p.MessagingProduct == "" {
		p.MessagingProduct = "whatsapp"
	}
	return p, nil
}

// BusinessProfileUpdate changes the fields that are set: a nil pointer or a
// nil Websites leaves that field as it is.
type BusinessProfileUpdate struct {
	About       *string
	Address     *string
	Description *string
	Email       *string
	Vertical    *string
	Websites    []string // at most 2
	// ProfilePictureHandle is a handle from UploadProfilePhoto.
	ProfilePictureHandle string
}

// MaxProfileWebsites is the platform's limit of websites on a profile.
const MaxProfileWebsites = 2

type wireProfileUpdate struct {
	MessagingProduct     string   `json:"messaging_product"`
	About                *string  `json:"about,omitempty"`
	Address              *string  `json:"address,omitempty"`
	Description          *string  `json:"description,omitempty"`
	Email                *string  `json:"email,omitempty"`
	Vertical             *string  `json:"vertical,omitempty"`
	Websites             []string `json:"websites,omitempty"`
	ProfilePictureHandle string   `json:"profile_picture_handle,omitempty"`
}

// UpdateBusinessProfile changes acc's business profile
// (POST /{phone_id}/whatsapp_business_profile).
//
// Errors: ErrInvalid for more than two websites or a missing phone id;
// *Error for a Graph error answer (an unknown vertical, an invalid email);
// ErrUnexpectedResponse when success is not true; a transport error
// otherwise.
func (c *Client) UpdateBusinessProfile(ctx context.Context, acc Account, p BusinessProfileUpdate) error {
	if len(p.Websites) > MaxProfileWebsites {
		return fmt.Errorf("%w: a profile has at most %d websites", ErrInvalid, MaxProfileWebsites)
	}
	u, err := c.endpoint(acc, nil, acc.PhoneID, "whatsapp_business_profile")
	if err != nil {
		return err
	}
	r, err := jsonRequest(http.MethodPost, u, wireProfileUpdate{
		MessagingProduct:     "whatsapp",
		About:                p.About,
		Address:              p.Address,
		Description:          p.Description,
		Email:                p.Email,
		Vertical:             p.Vertical,
		Websites:             p.Websites,
		ProfilePictureHandle: p.ProfilePictureHandle,
	})
	if err != nil {
		return err
	}
	// Setting the same values twice leaves the same profile.
	r.idempotent = true
	return c.doSuccess(ctx, acc, r)
}

// UploadProfilePhoto uploads a JPEG or PNG with the Resumable Upload API
// (UploadResumable) and returns the file handle to pass as
// ProfilePictureHandle.
//
// Errors: ErrInvalid for a type other than JPEG or PNG, and as
// UploadResumable.
func (c *Client) UploadProfilePhoto(ctx context.Context, acc Account, appID, filename, mimeType string, data []byte) (string, error) {
	switch mimeType {
	case "image/jpeg", "image/jpg", "image/png":
	default:
		return "", fmt.Errorf("%w: profile photo must be JPEG or PNG, not %q", ErrInvalid, mimeType)
	}
	if len(data) == 0 {
		return "", fmt.Errorf("%w: profile photo is empty", ErrInvalid)
	}
	return c.UploadResumable(ctx, acc, appID, filename, mimeType, data)
}

// UploadResumable uploads a file with the Resumable Upload API and returns
// its file handle (a profile photo, a template header sample): it opens an
// upload session (POST /{app_id}/uploads?file_name=&file_length=&file_type=,
// answered {"id": "upload:..."}), then sends the bytes at offset 0
// (POST /{upload_id} with "Authorization: OAuth <token>" and header
// file_offset: 0, answered {"h": handle}).
//
// Errors: ErrInvalid for a missing app id or empty data; *Error for a Graph
// error answer (the token's user has no role on the app); ErrUnexpectedResponse
// when an answer lacks its id or handle; a transport error otherwise.
func (c *Client) UploadResumable(ctx context.Context, acc Account, appID, filename, mimeType string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", fmt.Errorf("%w: the file to upload is empty", ErrInvalid)
	}
	q := url.Values{"file_length": {strconv.Itoa(len(data))}, "file_type": {mimeType}}
	if filename != "" {
		q.Set("file_name", filename)
	}
	u, err := c.endpoint(acc, q, appID, "uploads")
	if err != nil {
		return "", err
	}
	// Opening a session twice only leaves an unused session behind.
	open := &request{method: http.MethodPost, url: u, idempotent: true}
	var session struct {
		ID string `json:"id"`
	}
	if err := c.doJSON(ctx, acc, open, &session); err != nil {
		return "", err
	}
	if !strings.HasPrefix(session.ID, "upload:") {
		return "", fmt.Errorf("%w: %s: no upload session id", ErrUnexpectedResponse, open.what)
	}
	su, err := c.uploadSessionURL(acc, session.ID)
	if err != nil {
		return "", err
	}
	send := &request{
		method:  http.MethodPost,
		url:     su,
		what:    "POST " + su.EscapedPath(),
		header:  map[string]string{"file_offset": "0"},
		newBody: bytesBody(data),
		length:  int64(len(data)),
		oauth:   true,
		// Resending the whole file at offset 0 yields the same upload.
		idempotent: true,
	}
	var done struct {
		H string `json:"h"`
	}
	if err := c.doJSON(ctx, acc, send, &done); err != nil {
		return "", err
	}
	if done.H == "" {
		return "", fmt.Errorf("%w: %s: no file handle", ErrUnexpectedResponse, send.what)
	}
	return done.H, nil
}

// uploadSessionURL is {base}/{version}/{upload id}. The id is used verbatim,
// as the platform documents, including its "?sig=..." query.
func (c *Client) uploadSessionURL(acc Account, id string) (*url.URL, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	v, err := acc.version()
	if err != nil {
		return nil, err
	}
	path, query, _ := strings.Cut(id, "?")
	if strings.ContainsAny(path, "# \t\r\n") {
		return nil, fmt.Errorf("%w: upload session id %q is not a path", ErrUnexpectedResponse, path)
	}
	u, err := url.Parse(strings.TrimRight(c.base.String(), "/") + "/" + v + "/" + path)
	if err != nil {
		return nil, fmt.Errorf("%w: upload session id: %v", ErrUnexpectedResponse, err)
	}
	u.RawQuery = query
	return u, nil
}
