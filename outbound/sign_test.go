package outbound_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"switchboard/outbound"
)

const (
	testSecret  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	testEventID = "0b8f6f3c-3b1e-4d8a-9c59-6a1f3f0f2d11"
	testOrgID   = "5d2c0a44-91a4-4c3e-8f5e-1e2b7c9d0a33"
)

// MustDecodeSecret returns the key bytes of a whsec_ secret, decoded here
// without the package, or fails the test.
func MustDecodeSecret(tb testing.TB, s string) []byte {
	tb.Helper()
	key, err := base64.StdEncoding.DecodeString(s[len("whsec_"):])
	if err != nil {
		tb.Fatalf("decode %q: %v", s, err)
	}
	return key
}

func TestSign(t *testing.T) {
	t.Run("StandardWebhooksVector", func(t *testing.T) {
		// The test vector the Standard Webhooks reference libraries use.
		h := outbound.Sign(outbound.SecretBytes(testSecret), "msg_p5jXN8AQM9LWM0D4loKWxJek",
			time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
		if got, want := h.Get("webhook-signature"), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
			t.Errorf("webhook-signature = %q, want %q", got, want)
		}
	})

	t.Run("Headers", func(t *testing.T) {
		key := MustDecodeSecret(t, testSecret)
		ts := time.Date(2025, 3, 1, 12, 30, 45, 999_000_000, time.FixedZone("CET", 3600))
		body := []byte(`{"id":"` + testEventID + `","event":"message:new","data":{"text":"hi"}}`)
		unix := strconv.FormatInt(ts.Unix(), 10)

		h := outbound.Sign(key, testEventID, ts, body)

		// Derived here with crypto/hmac, independently of the package.
		std := hmac.New(sha256.New, key)
		std.Write([]byte(testEventID + "." + unix + "." + string(body)))
		compat := hmac.New(sha256.New, key)
		compat.Write(body)

		want := map[string]string{
			"webhook-id":          testEventID,
			"webhook-timestamp":   unix,
			"webhook-signature":   "v1," + base64.StdEncoding.EncodeToString(std.Sum(nil)),
			"X-Webhook-Signature": "sha256=" + hex.EncodeToString(compat.Sum(nil)),
		}
		for name, v := range want {
			if got := h.Get(name); got != v {
				t.Errorf("%s = %q, want %q", name, got, v)
			}
		}
		if unix != "1740828645" {
			t.Errorf("timestamp = %s, want whole unix seconds 1740828645", unix)
		}
		if len(h) != len(want) {
			t.Errorf("Sign set %d headers, want %d: %v", len(h), len(want), h)
		}

		outbound.SetEvent(h, "message:new")
		if got := h.Get("X-Webhook-Event"); got != "message:new" {
			t.Errorf("X-Webhook-Event = %q", got)
		}
	})

	t.Run("RawSecretKeysBothSignatures", func(t *testing.T) {
		// A user-supplied secret not in whsec_ form is used as its bytes.
		secret := "my own secret"
		body := []byte(`{}`)
		h := outbound.Sign(outbound.SecretBytes(secret), testEventID, time.Unix(1700000000, 0), body)

		std := hmac.New(sha256.New, []byte(secret))
		std.Write([]byte(testEventID + ".1700000000.{}"))
		compat := hmac.New(sha256.New, []byte(secret))
		compat.Write(body)
		if got, want := h.Get("webhook-signature"), "v1,"+base64.StdEncoding.EncodeToString(std.Sum(nil)); got != want {
			t.Errorf("webhook-signature = %q, want %q", got, want)
		}
		if got, want := h.Get("X-Webhook-Signature"), "sha256="+hex.EncodeToString(compat.Sum(nil)); got != want {
			t.Errorf("X-Webhook-Signature = %q, want %q", got, want)
		}
	})
}

func TestVerifyAt(t *testing.T) {
	key := outbound.SecretBytes(testSecret)
	body := []byte(`{"event":"message:new"}`)
	now := time.Unix(1_700_000_000, 0)
	signed := func() http.Header { return outbound.Sign(key, testEventID, now, body) }

	tests := []struct {
		name   string
		secret []byte
		header func() http.Header
		body   []byte
		now    time.Time
		want   error
	}{
		{name: "OK", header: signed},
		{name: "OKWithinTolerance", header: signed, now: now.Add(5 * time.Minute)},
		{name: "OKClockBehind", header: signed, now: now.Add(-5 * time.Minute)},
		{
			name: "OKOneOfSeveral",
			header: func() http.Header {
				h := signed()
				h.Set("webhook-signature", "v1,bm9wZQ== v1a,aGVsbG8= "+h.Get("webhook-signature"))
				return h
			},
		},
		{
			name: "OKRotatedSecret",
			header: func() http.Header {
				h := signed()
				old := outbound.Sign([]byte("old key"), testEventID, now, body)
				h.Set("webhook-signature", old.Get("webhook-signature")+" "+h.Get("webhook-signature"))
				return h
			},
		},
		{name: "ErrTamperedBody", header: signed, body: []byte(`{"event":"message:old"}`), want: outbound.ErrNoMatchingSignature},
		{name: "ErrWrongSecret", header: signed, secret: []byte("another key"), want: outbound.ErrNoMatchingSignature},
		{name: "ErrOldTimestamp", header: signed, now: now.Add(5*time.Minute + time.Second), want: outbound.ErrTimestampTolerance},
		{name: "ErrFutureTimestamp", header: signed, now: now.Add(-6 * time.Minute), want: outbound.ErrTimestampTolerance},
		{
			name: "ErrTamperedID",
			header: func() http.Header {
				h := signed()
				h.Set("webhook-id", "5d2c0a44-91a4-4c3e-8f5e-1e2b7c9d0a34")
				return h
			},
			want: outbound.ErrNoMatchingSignature,
		},
		{
			name: "ErrTamperedTimestamp",
			header: func() http.Header {
				h := signed()
				h.Set("webhook-timestamp", strconv.FormatInt(now.Unix()+1, 10))
				return h
			},
			want: outbound.ErrNoMatchingSignature,
		},
		{
			name: "ErrOnlyOtherVersions",
			header: func() http.Header {
				h := signed()
				sig := h.Get("webhook-signature")
				h.Set("webhook-signature", "v1a,"+sig[len("v1,"):])
				return h
			},
			want: outbound.ErrNoMatchingSignature,
		},
		{
			name: "ErrBadBase64",
			header: func() http.Header {
				h := signed()
				h.Set("webhook-signature", "v1,!!!")
				return h
			},
			want: outbound.ErrNoMatchingSignature,
		},
		{
			name: "ErrInvalidTimestamp",
			header: func() http.Header {
				h := signed()
				h.Set("webhook-timestamp", "2023-11-14T22:13:20Z")
				return h
			},
			want: outbound.ErrInvalidTimestamp,
		},
		{name: "ErrMissingID", header: without(signed, "webhook-id"), want: outbound.ErrMissingHeaders},
		{name: "ErrMissingTimestamp", header: without(signed, "webhook-timestamp"), want: outbound.ErrMissingHeaders},
		{name: "ErrMissingSignature", header: without(signed, "webhook-signature"), want: outbound.ErrMissingHeaders},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			secret, b, at := key, body, now
			if tc.secret != nil {
				secret = tc.secret
			}
			if tc.body != nil {
				b = tc.body
			}
			if !tc.now.IsZero() {
				at = tc.now
			}
			err := outbound.VerifyAt(secret, tc.header(), b, 0, at)
			if !errors.Is(err, tc.want) {
				t.Fatalf("VerifyAt = %v, want %v", err, tc.want)
			}
		})
	}

	t.Run("CustomTolerance", func(t *testing.T) {
		err := outbound.VerifyAt(key, signed(), body, time.Hour, now.Add(59*time.Minute))
		if err != nil {
			t.Fatalf("VerifyAt = %v, want nil", err)
		}
		err = outbound.VerifyAt(key, signed(), body, time.Minute, now.Add(2*time.Minute))
		if !errors.Is(err, outbound.ErrTimestampTolerance) {
			t.Fatalf("VerifyAt = %v, want ErrTimestampTolerance", err)
		}
	})
}

func without(h func() http.Header, name string) func() http.Header {
	return func() http.Header {
		hh := h()
		hh.Del(name)
		return hh
	}
}

func TestVerify(t *testing.T) {
	key := outbound.SecretBytes(outbound.NewSecret())
	body := []byte(`{"ok":true}`)

	if err := outbound.Verify(key, outbound.Sign(key, testEventID, time.Now(), body), body, 0); err != nil {
		t.Fatalf("Verify(fresh) = %v, want nil", err)
	}
	old := outbound.Sign(key, testEventID, time.Now().Add(-10*time.Minute), body)
	if err := outbound.Verify(key, old, body, 0); !errors.Is(err, outbound.ErrTimestampTolerance) {
		t.Fatalf("Verify(10 minutes old) = %v, want ErrTimestampTolerance", err)
	}
}

func TestVerifyCompat(t *testing.T) {
	key := outbound.SecretBytes(testSecret)
	body := []byte(`{"a":1}`)
	h := outbound.Sign(key, testEventID, time.Unix(1_700_000_000, 0), body)

	tests := []struct {
		name   string
		header string
		body   []byte
		want   error
	}{
		{name: "OK", header: h.Get("X-Webhook-Signature"), body: body},
		{name: "ErrTamperedBody", header: h.Get("X-Webhook-Signature"), body: []byte(`{"a":2}`), want: outbound.ErrNoMatchingSignature},
		{name: "ErrNoPrefix", header: h.Get("X-Webhook-Signature")[len("sha256="):], body: body, want: outbound.ErrNoMatchingSignature},
		{name: "ErrNotHex", header: "sha256=zz", body: body, want: outbound.ErrNoMatchingSignature},
		{name: "ErrMissing", header: "", body: body, want: outbound.ErrMissingHeaders},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hh := http.Header{}
			if tc.header != "" {
				hh.Set("X-Webhook-Signature", tc.header)
			}
			if err := outbound.VerifyCompat(key, hh, tc.body); !errors.Is(err, tc.want) {
				t.Fatalf("VerifyCompat = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestDeliveryRoundTrip sends a signed envelope over HTTP, the way the
// worker will, and checks it as a receiver.
func TestDeliveryRoundTrip(t *testing.T) {
	secret := outbound.NewSecret()
	type received struct {
		header http.Header
		body   []byte
	}
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), b}
	}))
	t.Cleanup(srv.Close)

	body, err := outbound.Envelope(testEventID, "message:new", time.Now(), testOrgID, map[string]any{"text": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	h := outbound.Sign(outbound.SecretBytes(secret), testEventID, time.Now(), body)
	outbound.SetEvent(h, "message:new")
	h.Set("Content-Type", "application/json")
	req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	r := <-got
	// The receiver knows only the secret string, as a user would.
	key := MustDecodeSecret(t, secret)
	if err := outbound.Verify(key, r.header, r.body, 0); err != nil {
		t.Errorf("Verify = %v", err)
	}
	if err := outbound.VerifyCompat(key, r.header, r.body); err != nil {
		t.Errorf("VerifyCompat = %v", err)
	}
	if r.header.Get("webhook-id") != testEventID || r.header.Get("X-Webhook-Event") != "message:new" {
		t.Errorf("headers = %v", r.header)
	}
}
