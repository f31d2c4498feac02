package rest

import (
	"context"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"switchboard/apperr"
)

// PlatformWebhooks receives the platform's webhooks (inbound.Service).
type PlatformWebhooks interface {
	// Verify answers the subscription check with the challenge.
	Verify(ctx context.Context, mode, token, challenge string) (string, error)
	// Receive stores a signed delivery durably before it returns.
	Receive(ctx context.Context, body []byte, signature string) error
}

// maxWebhookBody bounds a platform webhook delivery.
const maxWebhookBody = 4 << 20

// webhookRoutes are the platform's: public (authenticated by the verify
// token and the body signature) and not rate limited, since the platform
// delivers every event from a few addresses.
func (a *API) webhookRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/webhook", Op: "verifyPlatformWebhook", Errors: []int{http.StatusForbidden}, Query: verifyWebhookQuery{}, Out: rawBody{ContentType: "text/plain", Description: "The challenge, echoed."}, Handle: a.verifyWebhook, Unlimited: true},
		{Method: post, Path: "/api/webhook", Op: "receivePlatformWebhook", Errors: []int{http.StatusUnauthorized}, In: map[string]any{}, Out: noData{}, Handle: a.receiveWebhook, Unlimited: true},
	}
}

func (a *API) verifyWebhook(c *gin.Context) (int, any, error) {
	q := queryOf[verifyWebhookQuery](c)
	challenge, err := a.Inbound.Verify(ctx(c), q.Mode, q.VerifyToken, q.Challenge)
	if err != nil {
		return 0, nil, err
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(challenge))
	return http.StatusOK, nil, nil
}

// receiveWebhook acknowledges a delivery once it is stored; processing
// happens in a worker.
func (a *API) receiveWebhook(c *gin.Context) (int, any, error) {
	body, err := readWebhookBody(c.Request)
	if err != nil {
		return 0, nil, err
	}
	if err := a.Inbound.Receive(ctx(c), body, c.GetHeader("X-Hub-Signature-256")); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, nil, nil
}

// readWebhookBody reads a delivery of at most maxWebhookBody bytes: into
// a buffer of its Content-Length when it has one (the platform's always
// do), which spares growing and copying one. Errors: invalid.
func readWebhookBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > maxWebhookBody {
		return nil, apperr.Invalidf("webhook body too large")
	} else if n >= 0 {
		// net/http's body ends at Content-Length: a shorter one fails here.
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, apperr.Invalidf("could not read request body")
		}
		return body, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
	if err != nil {
		return nil, apperr.Invalidf("could not read request body")
	}
	if len(body) > maxWebhookBody {
		return nil, apperr.Invalidf("webhook body too large")
	}
	return body, nil
}
