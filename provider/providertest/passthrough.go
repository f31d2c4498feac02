package providertest

import "net/http"

// Write writes the response; a Handle handler uses it to answer some
// requests with a scripted response.
func (r Response) Write(w http.ResponseWriter) { r.write(w) }

// Default answers a request as the fake does without overrides, so that a
// Handle handler can fail some requests and pass the others on.
func (f *Fake) Default(w http.ResponseWriter, r *http.Request) { f.serveDefault(w, r) }
