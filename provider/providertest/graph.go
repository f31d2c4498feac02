package providertest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The fake's default answers, modelled on the platform's documented ones.

func defaultPhone() map[string]any {
	return map[string]any{
		"display_phone_number":                      "+1 555-078-3881",
		"verified_name":                             "Switchboard Test",
		"quality_rating":                            "GREEN",
		"code_verification_status":                  "VERIFIED",
		"account_mode":                              "LIVE",
		"messaging_limit_tier":                      "TIER_10K",
		"whatsapp_business_manager_messaging_limit": "TIER_10K",
		"throughput":                                map[string]any{"level": "STANDARD"},
		"platform_type":                             "CLOUD_API",
		"name_status":                               "APPROVED",
		"is_official_business_account":              false,
	}
}

func defaultProfile() map[string]any {
	return map[string]any{
		"about":               "Replies within the hour.",
		"address":             "1 Hacker Way, Menlo Park, CA 94025",
		"description":         "Test business of the Switchboard provider fake.",
		"email":               "hello@example.com",
		"profile_picture_url": "https://pps.whatsapp.net/v/t61.24694-24/fake-profile.jpg",
		"websites":            []any{"https://www.example.com/"},
		"vertical":            "PROF_SERVICES",
	}
}

// DownloadPath is where the fake serves media downloads (?mid=<media id>),
// like the platform's lookaside.fbsbx.com/whatsapp_business/attachments/.
const DownloadPath = "/whatsapp_business/attachments/"

func (f *Fake) defaultRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{phone}/messages", f.sendMessage)
	mux.HandleFunc("POST /{phone}/media", f.uploadMedia)
	mux.HandleFunc("GET /{id}", f.getNode)
	mux.HandleFunc("POST /{id}", f.postNode)
	mux.HandleFunc("GET /{phone}/whatsapp_business_profile", f.getProfile)
	mux.HandleFunc("POST /{phone}/whatsapp_business_profile", f.updateProfile)
	mux.HandleFunc("POST /{waba}/subscribed_apps", f.subscribe)
	mux.HandleFunc("GET /{waba}/subscribed_apps", f.subscribedApps)
	mux.HandleFunc("POST /{app}/uploads", f.openUpload)
	f.templateRoutes(mux)
	f.catalogRoutes(mux)
	f.flowRoutes(mux)
	f.callRoutes(mux)
	return mux
}

// serveDefault checks the version and token, then routes to the default
// answers.
func (f *Fake) serveDefault(w http.ResponseWriter, r *http.Request) {
	if Version(r) == "" {
		if r.Method == http.MethodGet && r.URL.Path == DownloadPath {
			if !f.authorized(r, "Bearer ") {
				InvalidToken().write(w)
				return
			}
			f.download(w, r)
			return
		}
		GraphError(http.StatusBadRequest, 2500, "Unknown path components: "+r.URL.Path, "").write(w)
		return
	}
	scheme := "Bearer "
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/upload:") {
		scheme = "OAuth " // the Resumable Upload API's documented header
	}
	if !f.authorized(r, scheme) {
		InvalidToken().write(w)
		return
	}
	if _, pattern := f.defaults.Handler(r); pattern == "" {
		GraphError(http.StatusBadRequest, 100, fmt.Sprintf("Unsupported %s request.", strings.ToLower(r.Method)), "").write(w)
		return
	}
	f.defaults.ServeHTTP(w, r)
}

func (f *Fake) authorized(r *http.Request, scheme string) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), scheme)
	f.mu.Lock()
	want := f.token
	f.mu.Unlock()
	return ok && tok != "" && (want == "" || tok == want)
}

func (f *Fake) newID() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	return f.nextID
}

var messageTypes = map[string]bool{
	"text": true, "image": true, "video": true, "audio": true, "document": true, "sticker": true,
	"interactive": true, "template": true, "reaction": true, "location": true, "contacts": true,
}

// sendMessage answers POST /{phone}/messages: a send, or a read receipt.
func (f *Fake) sendMessage(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		InvalidParameter("Request body is not a JSON object").write(w)
		return
	}
	if m["messaging_product"] != "whatsapp" {
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter messaging_product is required.", "").write(w)
		return
	}
	if status, ok := m["status"]; ok {
		if id, _ := m["message_id"].(string); status != "read" || id == "" {
			InvalidParameter("status must be read, with a message_id").write(w)
			return
		}
		JSON(http.StatusOK, map[string]any{"success": true}).write(w)
		return
	}
	to, _ := m["to"].(string)
	if to == "" {
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter to is required.", "").write(w)
		return
	}
	typ, _ := m["type"].(string)
	if typ == "" {
		typ = "text" // the platform's default type
	}
	if !messageTypes[typ] {
		InvalidParameter(fmt.Sprintf("Unsupported message type %q", typ)).write(w)
		return
	}
	if _, ok := m[typ].(map[string]any); !ok && typ != "contacts" {
		GraphError(http.StatusBadRequest, 100, fmt.Sprintf("(#100) The parameter %s is required.", typ), "").write(w)
		return
	}
	n := f.newID()
	f.mu.Lock()
	if !f.sends.unrecorded.Load() {
		f.sent = append(f.sent, m)
	}
	f.mu.Unlock()
	f.countAccepted(m)
	msg := map[string]any{"id": fmt.Sprintf("wamid.FAKE%016d", n)}
	if typ == "template" {
		msg["message_status"] = "accepted"
	}
	JSON(http.StatusOK, map[string]any{
		"messaging_product": "whatsapp",
		"contacts":          []any{map[string]any{"input": to, "wa_id": waID(to)}},
		"messages":          []any{msg},
	}).write(w)
}

// waID is the WhatsApp id of a phone number: its digits.
func waID(to string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, to)
}

// uploadMedia answers POST /{phone}/media (multipart).
func (f *Fake) uploadMedia(w http.ResponseWriter, r *http.Request) {
	body := readBody(r)
	form, files := parseMultipart(r.Header.Get("Content-Type"), body)
	if form == nil {
		InvalidParameter("Expected a multipart/form-data body").write(w)
		return
	}
	if form["messaging_product"] != "whatsapp" {
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter messaging_product is required.", "").write(w)
		return
	}
	var file *File
	for i := range files {
		if files[i].Field == "file" {
			file = &files[i]
		}
	}
	if file == nil || form["type"] == "" {
		InvalidParameter("The parameters file and type are required").write(w)
		return
	}
	id := strconv.Itoa(1_000_000_000_000_000 + f.newID())
	f.AddMedia(id, form["type"], file.Data)
	JSON(http.StatusOK, map[string]any{"id": id}).write(w)
}

// getNode answers GET /{id}: a media object, a phone number, or a
// business account's analytics (analytics.go).
func (f *Fake) getNode(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if fl, ok := f.flowByID(id); ok {
		f.flowNode(w, fl)
		return
	}
	f.mu.Lock()
	m, isMedia := f.media[id]
	phone := cloneMap(f.phone)
	f.mu.Unlock()
	if isMedia {
		sum := sha256.Sum256(m.data)
		JSON(http.StatusOK, map[string]any{
			"messaging_product": "whatsapp",
			"url":               fmt.Sprintf("%s%s?mid=%s&ext=1700000000&hash=ATfakeHash", f.URL, DownloadPath, id),
			"mime_type":         m.mimeType,
			"sha256":            hex.EncodeToString(sum[:]),
			"file_size":         len(m.data),
			"id":                id,
		}).write(w)
		return
	}
	fields := r.URL.Query().Get("fields")
	if id == BusinessID && fields == "owner_business_info" {
		JSON(http.StatusOK, map[string]any{"id": id, "owner_business_info": map[string]any{
			"id": OwnerBusinessID, "name": "Switchboard Test Business"}}).write(w)
		return
	}
	if isAnalytics(fields) {
		f.businessAnalytics(w, id, fields)
		return
	}
	if fields == "" && id != PhoneID {
		GraphError(http.StatusBadRequest, 100, fmt.Sprintf("Unsupported get request. Object with ID '%s' does not exist, "+
			"cannot be loaded due to missing permissions, or does not support this operation.", id), "").write(w)
		return
	}
	out := map[string]any{"id": id}
	if fields == "" {
		for k, v := range phone {
			out[k] = v
		}
	}
	for _, name := range strings.Split(fields, ",") {
		if name == "" || name == "id" {
			continue
		}
		v, ok := phone[name]
		if !ok {
			GraphError(http.StatusBadRequest, 100, fmt.Sprintf("(#100) Tried accessing nonexisting field (%s) on node type (WhatsAppBusinessPhoneNumber)", name), "").write(w)
			return
		}
		out[name] = v
	}
	JSON(http.StatusOK, out).write(w)
}

// download serves a stored media object's bytes.
func (f *Fake) download(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("mid")
	f.mu.Lock()
	m, ok := f.media[id]
	f.mu.Unlock()
	if !ok {
		GraphError(http.StatusNotFound, 100, "Media not found", "The media URL is invalid or has expired").write(w)
		return
	}
	w.Header().Set("Content-Type", m.mimeType)
	w.Header().Set("Content-Length", strconv.Itoa(len(m.data)))
	_, _ = w.Write(m.data)
}

// getProfile answers GET /{phone}/whatsapp_business_profile.
func (f *Fake) getProfile(w http.ResponseWriter, r *http.Request) {
	profile := f.BusinessProfile()
	out := map[string]any{"messaging_product": "whatsapp"}
	fields := r.URL.Query().Get("fields")
	for k, v := range profile {
		if fields == "" || containsField(fields, k) {
			out[k] = v
		}
	}
	JSON(http.StatusOK, map[string]any{"data": []any{out}}).write(w)
}

func containsField(list, name string) bool {
	for _, f := range strings.Split(list, ",") {
		if f == name {
			return true
		}
	}
	return false
}

// updateProfile answers POST /{phone}/whatsapp_business_profile.
func (f *Fake) updateProfile(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		InvalidParameter("Request body is not a JSON object").write(w)
		return
	}
	if m["messaging_product"] != "whatsapp" {
		GraphError(http.StatusBadRequest, 100, "(#100) The parameter messaging_product is required.", "").write(w)
		return
	}
	set := map[string]any{}
	for k, v := range m {
		switch k {
		case "messaging_product":
		case "about", "address", "description", "email", "vertical":
			s, ok := v.(string)
			if !ok {
				InvalidParameter(fmt.Sprintf("Param %s must be a string", k)).write(w)
				return
			}
			set[k] = s
		case "websites":
			list, ok := v.([]any)
			if !ok || len(list) > 2 {
				InvalidParameter("Param websites must be an array of at most 2 URLs").write(w)
				return
			}
			set[k] = list
		case "profile_picture_handle":
			h, _ := v.(string)
			f.mu.Lock()
			pic, ok := f.handles[h]
			f.mu.Unlock()
			if !ok {
				InvalidParameter("Param profile_picture_handle is not a valid file handle").write(w)
				return
			}
			set["profile_picture_url"] = pic
		default:
			InvalidParameter(fmt.Sprintf("Unknown parameter %s", k)).write(w)
			return
		}
	}
	f.mu.Lock()
	for k, v := range set {
		f.profile[k] = v
	}
	f.mu.Unlock()
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}

// subscribe answers POST /{waba}/subscribed_apps.
func (f *Fake) subscribe(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.subscribed[r.PathValue("waba")] = true
	f.mu.Unlock()
	JSON(http.StatusOK, map[string]any{"success": true}).write(w)
}

// subscribedApps answers GET /{waba}/subscribed_apps.
func (f *Fake) subscribedApps(w http.ResponseWriter, r *http.Request) {
	data := []any{}
	if f.Subscribed(r.PathValue("waba")) {
		data = append(data, map[string]any{"whatsapp_business_api_data": map[string]any{
			"id":   AppID,
			"link": "https://www.facebook.com/games/?app_id=" + AppID,
			"name": "Switchboard Test App",
		}})
	}
	JSON(http.StatusOK, map[string]any{"data": data}).write(w)
}

var uploadTypes = map[string]bool{
	"application/pdf": true, "image/jpeg": true, "image/jpg": true, "image/png": true, "video/mp4": true,
}

// openUpload answers POST /{app}/uploads: a Resumable Upload API session.
func (f *Fake) openUpload(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	length, err := strconv.Atoi(q.Get("file_length"))
	if err != nil || length <= 0 {
		InvalidParameter("Param file_length must be a positive integer").write(w)
		return
	}
	if !uploadTypes[q.Get("file_type")] {
		InvalidParameter("Param file_type must be one of application/pdf, image/jpeg, image/jpg, image/png, video/mp4").write(w)
		return
	}
	n := f.newID()
	id := "upload:" + base64.URLEncoding.EncodeToString(fmt.Appendf(nil, "1:attachment:%s:%d", r.PathValue("app"), n))
	sig := fmt.Sprintf("ARZfakeSig%d", n)
	f.mu.Lock()
	f.sessions[id+"?sig="+sig] = &uploadSession{length: length, fileType: q.Get("file_type"), name: q.Get("file_name")}
	f.mu.Unlock()
	JSON(http.StatusOK, map[string]any{"id": id + "?sig=" + sig}).write(w)
}

// uploadData answers POST /{upload id}: the file bytes of a session.
func (f *Fake) uploadData(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("id") + "?sig=" + r.URL.Query().Get("sig")
	f.mu.Lock()
	s, ok := f.sessions[key]
	f.mu.Unlock()
	if !ok {
		GraphError(http.StatusBadRequest, 100, "Unsupported post request.", "").write(w)
		return
	}
	if r.Header.Get("file_offset") != "0" {
		InvalidParameter("Header file_offset must be 0 for a new upload").write(w)
		return
	}
	body := readBody(r)
	if len(body) != s.length {
		InvalidParameter(fmt.Sprintf("Received %d bytes, the session declared %d", len(body), s.length)).write(w)
		return
	}
	n := f.newID()
	h := fmt.Sprintf("4:%s:%s:ARfakeHandle%d", base64.StdEncoding.EncodeToString([]byte(s.name)), s.fileType, n)
	f.mu.Lock()
	f.handles[h] = fmt.Sprintf("%s/pps/profile-%d", f.URL, n)
	f.mu.Unlock()
	JSON(http.StatusOK, map[string]any{"h": h}).write(w)
}

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}
