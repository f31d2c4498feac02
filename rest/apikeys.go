package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"switchboard/apikeys"
	"switchboard/apperr"
	"switchboard/ent"
)

// apiKeyJSON is the spec's API key record; the key itself is never in it.
type apiKeyJSON struct {
	ID         uuid.UUID  `json:"id"`
	Name       string     `json:"name"`
	KeyPrefix  string     `json:"key_prefix"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	IsActive   bool       `json:"is_active"`
	CreatedAt  time.Time  `json:"created_at"`
}

func presentAPIKey(k *ent.APIKey) apiKeyJSON {
	return apiKeyJSON{
		ID: k.ID, Name: k.Name, KeyPrefix: k.KeyPrefix, LastUsedAt: k.LastUsedAt,
		ExpiresAt: k.ExpiresAt, IsActive: k.IsActive, CreatedAt: k.CreatedAt,
	}
}

// createdAPIKeyJSON is the create response: the record plus the full key,
// shown only this once.
type createdAPIKeyJSON struct {
	apiKeyJSON
	Key string `json:"key"`
}

func (a *API) listAPIKeys(c *gin.Context) (int, any, error) {
	p := pageOf(c)
	keys, total, err := a.R.APIKeys.List(ctx(c), queryOf[searchQuery](c).Search, p.Offset(), p.Limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]apiKeyJSON, len(keys))
	for i, k := range keys {
		out[i] = presentAPIKey(k)
	}
	return http.StatusOK, listPayload("api_keys", out, total, p), nil
}

func (a *API) getAPIKey(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	k, err := a.R.APIKeys.Get(ctx(c), id)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentAPIKey(k), nil
}

// createAPIKeyBody is the JSON body of createAPIKey.
type createAPIKeyBody struct {
	Name      *string `json:"name" required:"true" nullable:"false" minLength:"1" maxLength:"100" example:"CRM sync"`
	ExpiresAt *string `json:"expires_at" format:"date-time" description:"RFC 3339, in the future; absent or null: the key never expires."`
}

func (a *API) createAPIKey(c *gin.Context) (int, any, error) {
	var b createAPIKeyBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.Name == nil {
		return 0, nil, apperr.Invalidf("name is required")
	}
	in := apikeys.CreateInput{Name: *b.Name}
	if b.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339, *b.ExpiresAt)
		if err != nil {
			return 0, nil, apperr.Invalidf("expires_at must be an RFC 3339 timestamp (for example 2030-01-02T15:04:05Z)")
		}
		in.ExpiresAt = &t
	}
	created, err := a.R.APIKeys.Create(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, createdAPIKeyJSON{apiKeyJSON: presentAPIKey(created.APIKey), Key: created.Key}, nil
}

// updateAPIKeyBody is the JSON body of updateAPIKey.
type updateAPIKeyBody struct {
	IsActive *bool `json:"is_active" required:"true" nullable:"false"`
}

func (a *API) updateAPIKey(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	var b updateAPIKeyBody
	if err := bindJSON(c, &b, false); err != nil {
		return 0, nil, err
	}
	if b.IsActive == nil {
		return 0, nil, apperr.Invalidf("is_active is required")
	}
	k, err := a.R.APIKeys.SetActive(ctx(c), id, *b.IsActive)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, presentAPIKey(k), nil
}

func (a *API) deleteAPIKey(c *gin.Context) (int, any, error) {
	return idAction(a.R.APIKeys.Delete, messageData{Message: "API key deleted"})(c)
}

// apiKeyRoutes: enabling, disabling and deleting a key are all revocation
// rights (api_keys:delete); the catalogue has no api_keys:update.
func (a *API) apiKeyRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/api-keys", Op: "apiKeys", Query: paged(50, searchQuery{}), Out: list("api_keys", apiKeyJSON{}), Handle: a.listAPIKeys},
		{Method: post, Path: "/api/api-keys", Op: "createAPIKey", Status: http.StatusCreated, In: createAPIKeyBody{}, Out: createdAPIKeyJSON{}, Handle: a.createAPIKey},
		{Method: get, Path: "/api/api-keys/:id", Op: "apiKey", Out: apiKeyJSON{}, Handle: a.getAPIKey},
		{Method: put, Path: "/api/api-keys/:id", Op: "setAPIKeyActive", In: updateAPIKeyBody{}, Out: apiKeyJSON{}, Handle: a.updateAPIKey},
		{Method: del, Path: "/api/api-keys/:id", Op: "deleteAPIKey", Out: messageData{}, Handle: a.deleteAPIKey},
	}
}
