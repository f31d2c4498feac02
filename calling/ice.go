package calling

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/viewer"
)

// ICEConfig is the ICE servers handed to browsers (STUN_URLS, TURN_URLS,
// TURN_SECRET, TURN_TTL).
type ICEConfig struct {
	STUNURLs   []string
	TURNURLs   []string
	TURNSecret string
	TURNTTL    time.Duration
}

// ICEServer is one RTCIceServer entry; Username and Credential are set
// (else nil) for TURN servers with credentials.
type ICEServer struct {
	URLs       []string `json:"urls"`
	Username   *string  `json:"username,omitempty"`
	Credential *string  `json:"credential,omitempty"`
}

// ICEServers returns the ICE servers for the viewer's browser: the STUN
// servers, then the TURN servers when configured, with short-lived
// credentials under the TURN REST API scheme when a secret is set.
// Errors: unauthenticated (no user).
func (s *Service) ICEServers(ctx context.Context) ([]ICEServer, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "ICE servers are for signed-in users")
	}
	out := []ICEServer{}
	if len(s.ICE.STUNURLs) > 0 {
		out = append(out, ICEServer{URLs: s.ICE.STUNURLs})
	}
	if len(s.ICE.TURNURLs) > 0 {
		turn := ICEServer{URLs: s.ICE.TURNURLs}
		if s.ICE.TURNSecret != "" {
			user, password := TURNCredential(s.ICE.TURNSecret, v.UserID.String(), s.now().Add(s.ICE.TURNTTL))
			turn.Username, turn.Credential = &user, &password
		}
		out = append(out, turn)
	}
	return out, nil
}

// TURNCredential is the TURN REST API credential (coturn's
// use-auth-secret) of user until expiry: username "<unix expiry>:<user>",
// password base64(HMAC-SHA1(secret, username)).
func TURNCredential(secret, user string, expiry time.Time) (username, password string) {
	username = strconv.FormatInt(expiry.Unix(), 10) + ":" + user
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(username))
	return username, base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
