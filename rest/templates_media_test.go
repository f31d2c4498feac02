package rest_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"switchboard/access"
	"switchboard/provider/providertest"
	"switchboard/templates"
)

func TestTemplateUploadMedia(t *testing.T) {
	env, fake, admin := newTemplateEnv(t)
	agent := env.NewUser(env.OrgID, access.RoleAgent)
	other := env.NewOrg("Elsewhere")
	png := tinyPNG(t)

	t.Run("Image", func(t *testing.T) {
		res := postForm(t, env, admin, "/api/templates/upload-media", map[string]string{"account": "Main"},
			&formFileSpec{field: "file", name: "banner.png", data: png, contentType: "application/octet-stream"}).
			ExpectStatus(t, http.StatusOK)
		h := res.String("data.handle")
		if !strings.HasPrefix(h, "4:") || res.String("data.filename") != "banner.png" || res.String("data.mime_type") != "image/png" ||
			res.Number("data.size") != float64(len(png)) {
			t.Fatalf("upload: %s", res.Raw)
		}
		opens := fake.Find(http.MethodPost, "/"+providertest.AppID+"/uploads")
		if len(opens) != 1 || opens[0].Query.Get("file_type") != "image/png" || opens[0].Query.Get("file_length") == "" ||
			opens[0].Query.Get("file_name") != "banner.png" {
			t.Fatalf("session: %+v", opens)
		}
		// The handle is the sample of an IMAGE header; publish sends it.
		id := admin.Do(http.MethodPost, "/api/templates", tplBody("with_image", map[string]any{"header_type": "IMAGE", "header_content": h})).
			ExpectStatus(t, http.StatusCreated).String("data.id")
		admin.Do(http.MethodPost, "/api/templates/"+id+"/publish", nil).ExpectStatus(t, http.StatusOK)
		creates := fake.Find(http.MethodPost, "/"+providertest.BusinessID+"/message_templates")
		comp := creates[len(creates)-1].JSON(t).(map[string]any)["components"].([]any)[0].(map[string]any)
		if comp["format"] != "IMAGE" || comp["example"].(map[string]any)["header_handle"].([]any)[0] != h {
			t.Fatalf("header component: %v", comp)
		}
	})
	t.Run("AccountInQuery", func(t *testing.T) {
		pdf := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("x"), 100)...)
		res := postForm(t, env, admin, "/api/templates/upload-media?account=Main", nil,
			&formFileSpec{field: "file", name: `C:\docs\invoice.pdf`, data: pdf}).ExpectStatus(t, http.StatusOK)
		if res.String("data.mime_type") != "application/pdf" || res.String("data.filename") != "invoice.pdf" {
			t.Fatalf("upload: %s", res.Raw)
		}
	})
	t.Run("ErrAgent", func(t *testing.T) {
		postForm(t, env, agent, "/api/templates/upload-media", map[string]string{"account": "Main"},
			&formFileSpec{field: "file", name: "a.png", data: png}).ExpectError(t, http.StatusForbidden)
	})
	t.Run("ErrOtherTenantsAccount", func(t *testing.T) {
		postForm(t, env, other, "/api/templates/upload-media", map[string]string{"account": "Main"},
			&formFileSpec{field: "file", name: "a.png", data: png}).ExpectError(t, http.StatusBadRequest)
	})
	for name, tc := range map[string]struct {
		fields map[string]string
		file   *formFileSpec
		msg    string
	}{
		"ErrNoFile":     {map[string]string{"account": "Main"}, nil, "file is required"},
		"ErrNoAccount":  {nil, &formFileSpec{field: "file", name: "a.png", data: png}, "account is required"},
		"ErrEmptyFile":  {map[string]string{"account": "Main"}, &formFileSpec{field: "file", name: "a.png", data: nil}, "empty"},
		"ErrWrongType":  {map[string]string{"account": "Main"}, &formFileSpec{field: "file", name: "a.gif", data: []byte("GIF89a....")}, "JPEG or PNG"},
		"ErrImageLarge": {map[string]string{"account": "Main"}, &formFileSpec{field: "file", name: "a.png", data: append(append([]byte{}, png...), make([]byte, templates.MaxImageBytes)...)}, "at most 5 MB"},
	} {
		t.Run(name, func(t *testing.T) {
			res := postForm(t, env, admin, "/api/templates/upload-media", tc.fields, tc.file).ExpectError(t, http.StatusBadRequest)
			if !strings.Contains(res.String("message"), tc.msg) {
				t.Errorf("message: %s", res.Raw)
			}
		})
	}
	t.Run("ErrPlatformRefuses", func(t *testing.T) {
		fake.Script("POST /{app}/uploads", providertest.InvalidToken())
		res := postForm(t, env, admin, "/api/templates/upload-media", map[string]string{"account": "Main"},
			&formFileSpec{field: "file", name: "a.png", data: png}).ExpectError(t, http.StatusBadRequest)
		if !strings.Contains(res.String("message"), "access token") {
			t.Errorf("message: %s", res.Raw)
		}
	})
}
