package provider_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"switchboard/provider"
	"switchboard/provider/providertest"
)

const profilePath = "/v21.0/" + providertest.PhoneID + "/whatsapp_business_profile"

func TestGetBusinessProfile(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f, c, _ := newFake(t)
		p, err := c.GetBusinessProfile(context.Background(), f.Account())
		if err != nil {
			t.Fatalf("GetBusinessProfile: %v", err)
		}
		r := MustOneRequest(t, f)
		MustRequestLine(t, r, "GET", profilePath)
		if got := r.Query.Get("fields"); got != "about,address,description,email,profile_picture_url,websites,vertical" {
			t.Errorf("fields = %q", got)
		}
		want := provider.BusinessProfile{
			MessagingProduct: "whatsapp", About: "Replies within the hour.", Address: "1 Hacker Way, Menlo Park, CA 94025",
			Description: "Test business of the Switchboard provider fake.", Email: "hello@example.com",
			ProfilePictureURL: "https://pps.whatsapp.net/v/t61.24694-24/fake-profile.jpg",
			Websites:          []string{"https://www.example.com/"}, Vertical: "PROF_SERVICES",
		}
		if !reflect.DeepEqual(*p, want) {
			t.Errorf("got  %+v\nwant %+v", *p, want)
		}
	})
	t.Run("EmptyFieldsAreEmpty", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("GET /{phone}/whatsapp_business_profile", providertest.JSON(200, map[string]any{"data": []any{map[string]any{"messaging_product": "whatsapp"}}}))
		p, err := c.GetBusinessProfile(context.Background(), f.Account())
		if err != nil {
			t.Fatalf("GetBusinessProfile: %v", err)
		}
		if p.Websites == nil || len(p.Websites) != 0 {
			t.Errorf("Websites = %#v, want empty non-nil", p.Websites)
		}
	})
	t.Run("ErrNoData", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("GET /{phone}/whatsapp_business_profile", providertest.JSON(200, map[string]any{"data": []any{}}))
		if _, err := c.GetBusinessProfile(context.Background(), f.Account()); !errors.Is(err, provider.ErrUnexpectedResponse) {
			t.Fatalf("err = %v, want ErrUnexpectedResponse", err)
		}
	})
}

func TestUpdateBusinessProfile(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name    string
		update  provider.BusinessProfileUpdate
		want    string
		profile map[string]any // fields expected in the fake's profile afterwards
	}{
		{name: "AboutOnly", update: provider.BusinessProfileUpdate{About: s("Open 9 to 5")},
			want: `{"messaging_product":"whatsapp","about":"Open 9 to 5"}`, profile: map[string]any{"about": "Open 9 to 5"}},
		{name: "ClearAddress", update: provider.BusinessProfileUpdate{Address: s("")},
			want: `{"messaging_product":"whatsapp","address":""}`, profile: map[string]any{"address": ""}},
		{name: "All", update: provider.BusinessProfileUpdate{
			About: s("a"), Address: s("b"), Description: s("c"), Email: s("d@example.com"), Vertical: s("RETAIL"),
			Websites: []string{"https://a.example", "https://b.example"}},
			want: `{"messaging_product":"whatsapp","about":"a","address":"b","description":"c","email":"d@example.com",
				"vertical":"RETAIL","websites":["https://a.example","https://b.example"]}`,
			profile: map[string]any{"vertical": "RETAIL", "websites": []any{"https://a.example", "https://b.example"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			if err := c.UpdateBusinessProfile(context.Background(), f.Account(), tt.update); err != nil {
				t.Fatalf("UpdateBusinessProfile: %v", err)
			}
			r := MustOneRequest(t, f)
			MustRequestLine(t, r, "POST", profilePath)
			MustJSONEqual(t, r.Body, tt.want)
			got := f.BusinessProfile()
			for k, v := range tt.profile {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("profile[%s] = %#v, want %#v", k, got[k], v)
				}
			}
		})
	}
	t.Run("ErrThreeWebsites", func(t *testing.T) {
		f, c, _ := newFake(t)
		err := c.UpdateBusinessProfile(context.Background(), f.Account(), provider.BusinessProfileUpdate{Websites: []string{"a", "b", "c"}})
		if !errors.Is(err, provider.ErrInvalid) || len(f.Requests()) != 0 {
			t.Fatalf("err = %v after %d requests", err, len(f.Requests()))
		}
	})
	t.Run("ErrRejectedByPlatform", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("POST /{phone}/whatsapp_business_profile", providertest.InvalidParameter("Param vertical must be one of {...}"))
		err := c.UpdateBusinessProfile(context.Background(), f.Account(), provider.BusinessProfileUpdate{Vertical: s("SPACE")})
		var perr *provider.Error
		if !errors.As(err, &perr) || perr.Details != "Param vertical must be one of {...}" {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestUploadProfilePhoto(t *testing.T) {
	photo := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 64)
	t.Run("OK", func(t *testing.T) {
		f, c, _ := newFake(t)
		ctx, acc := context.Background(), f.Account()
		handle, err := c.UploadProfilePhoto(ctx, acc, providertest.AppID, "logo.png", "image/png", photo)
		if err != nil {
			t.Fatalf("UploadProfilePhoto: %v", err)
		}
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		open, send := reqs[0], reqs[1]
		MustRequestLine(t, open, "POST", "/v21.0/"+providertest.AppID+"/uploads")
		wantQuery := map[string]string{"file_length": strconv.Itoa(len(photo)), "file_type": "image/png", "file_name": "logo.png"}
		for k, v := range wantQuery {
			if open.Query.Get(k) != v {
				t.Errorf("open query %s = %q, want %q", k, open.Query.Get(k), v)
			}
		}
		if len(open.Body) != 0 {
			t.Errorf("open body = %q, want none", open.Body)
		}
		if send.Method != "POST" || send.Version != "v21.0" || !strings.HasPrefix(send.Endpoint, "/upload:") {
			t.Errorf("send = %s %s", send.Method, send.Path)
		}
		if !strings.HasPrefix(send.Query.Get("sig"), "ARZfakeSig") {
			t.Errorf("send lost the session's sig query: %v", send.Query)
		}
		if got := send.Header.Get("Authorization"); got != "OAuth "+providertest.AccessToken {
			t.Errorf("Authorization = %q, want the OAuth scheme", got)
		}
		if got := send.Header.Get("file_offset"); got != "0" {
			t.Errorf("file_offset = %q", got)
		}
		if !bytes.Equal(send.Body, photo) {
			t.Errorf("send body differs (%d bytes)", len(send.Body))
		}
		if !strings.HasPrefix(handle, "4:") {
			t.Errorf("handle = %q", handle)
		}
		// The handle sets the profile picture.
		if err := c.UpdateBusinessProfile(ctx, acc, provider.BusinessProfileUpdate{ProfilePictureHandle: handle}); err != nil {
			t.Fatalf("UpdateBusinessProfile: %v", err)
		}
		MustJSONEqual(t, f.Requests()[2].Body, `{"messaging_product":"whatsapp","profile_picture_handle":"`+handle+`"}`)
		if url, _ := f.BusinessProfile()["profile_picture_url"].(string); !strings.HasPrefix(url, f.URL+"/pps/") {
			t.Errorf("profile_picture_url = %q", url)
		}
	})
	t.Run("RetriesUploadStep", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("POST /{id}", providertest.Unavailable())
		if _, err := c.UploadProfilePhoto(context.Background(), f.Account(), providertest.AppID, "logo.png", "image/png", photo); err != nil {
			t.Fatalf("UploadProfilePhoto: %v", err)
		}
		if n := len(f.Requests()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
	invalid := []struct {
		name, appID, mime string
		data              []byte
	}{
		{"ErrGIF", providertest.AppID, "image/gif", photo},
		{"ErrEmpty", providertest.AppID, "image/png", nil},
		{"ErrNoAppID", "", "image/png", photo},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			f, c, _ := newFake(t)
			_, err := c.UploadProfilePhoto(context.Background(), f.Account(), tt.appID, "x", tt.mime, tt.data)
			if !errors.Is(err, provider.ErrInvalid) || len(f.Requests()) != 0 {
				t.Fatalf("err = %v after %d requests", err, len(f.Requests()))
			}
		})
	}
	t.Run("ErrNoSessionID", func(t *testing.T) {
		f, c, _ := newFake(t)
		f.Script("POST /{app}/uploads", providertest.JSON(200, map[string]any{"id": ""}))
		_, err := c.UploadProfilePhoto(context.Background(), f.Account(), providertest.AppID, "x", "image/jpeg", photo)
		if !errors.Is(err, provider.ErrUnexpectedResponse) {
			t.Fatalf("err = %v, want ErrUnexpectedResponse", err)
		}
	})
}
