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
		{Method: get, Path: "/api/webhook", Op: "verifyPlatformWebhook", Handle: a.verifyWebhook, Unlimited: true},
		{Method: post, Path: "/api/webhook", Op: "receivePlatformWebhook", Handle: a.receiveWebhook, Unlimited: true},
	}
}

func (a *API) verifyWebhook(c *gin.Context) (int, any, error) {
	challenge, err := a.Inbound.Verify(ctx(c), c.Query("hub.mode"), c.Query("hub.verify_token"), c.Query("hub.challenge"))
	if err != nil {
		return 0, nil, err
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(challenge))
	return http.StatusOK, nil, nil
}

// receiveWebhook acknowledges a delivery once it is stored; processing
// happens in a worker.
func (a *API) receiveWebhook(c *gin.Context) (int, any, error) {
	body, err := io.ReadAll(io.LimitReader(c.Request.Body, maxWebhookBody+1))
	if err != nil {
		return 0, nil, apperr.Invalidf("could not read request body")
	}
	if len(body) > maxWebhookBody {
		return 0, nil, apperr.Invalidf("webhook body too large")
	}
	if err := a.Inbound.Receive(ctx(c), body, c.GetHeader("X-Hub-Signature-256")); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, nil, nil
}
