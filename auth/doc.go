// Package auth holds the security primitives of the service: signed tokens
// (access, refresh and WebSocket JWTs), password hashing, API keys, random
// CSRF and verify tokens, and the single-use registry for WebSocket tokens.
//
// It owns formats and checks only. It must not touch HTTP, cookies, the
// database or the viewer: handlers and middleware elsewhere decide where a
// credential comes from and what it grants, and call these functions to
// produce and verify it.
package auth
