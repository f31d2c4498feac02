package ai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Google Gemini: POST {base}/v1beta/models/{model}:generateContent with the
// key in x-goog-api-key; the system input is systemInstruction, the
// conversation "contents" with roles user and model, the reply bound
// generationConfig.maxOutputTokens.

type geminiRequest struct {
	SystemInstruction *geminiContent  `json:"systemInstruction,omitempty"`
	Contents          []geminiContent `json:"contents"`
	GenerationConfig  struct {
		MaxOutputTokens int `json:"maxOutputTokens"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text    string `json:"text"`
	Thought bool   `json:"thought,omitempty"`
}

// geminiModelRE is a model id as it may appear in the path: the
// "models/" prefix of the API's resource names is accepted and dropped.
var geminiModelRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func googleCall(base string, req Request) (*call, error) {
	model := strings.TrimPrefix(strings.TrimSpace(req.Model), "models/")
	if !geminiModelRE.MatchString(model) {
		return nil, fmt.Errorf("%w: model %q is not a Gemini model id", ErrInvalid, req.Model)
	}
	turns, err := conversation(req.History, true)
	if err != nil {
		return nil, err
	}
	var body geminiRequest
	if sys := systemText(req.SystemPrompt, req.Contexts); sys != "" {
		body.SystemInstruction = &geminiContent{Parts: []geminiPart{{Text: sys}}}
	}
	for _, t := range turns {
		role := "user"
		if t.Role == RoleAssistant {
			role = "model"
		}
		body.Contents = append(body.Contents, geminiContent{Role: role, Parts: []geminiPart{{Text: t.Text}}})
	}
	body.GenerationConfig.MaxOutputTokens = req.MaxTokens
	return &call{
		url:    base + "/v1beta/models/" + url.PathEscape(model) + ":generateContent",
		header: http.Header{"X-Goog-Api-Key": {req.APIKey}},
		body:   jsonBody(body),
		decode: decodeGoogle,
	}, nil
}

// geminiResponse is the part of a GenerateContentResponse we read.
type geminiResponse struct {
	Candidates []struct {
		Content      geminiContent `json:"content"`
		FinishReason string        `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
}

// geminiBlocked are the finish reasons of a candidate stopped by a filter.
var geminiBlocked = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true,
	"SPII": true, "IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true,
}

// decodeGoogle joins the first candidate's text parts (thought parts are
// skipped). A prompt blockReason or a filter finishReason is ErrBlocked;
// STOP and MAX_TOKENS (the text cut at max tokens) give the text; any other
// finish or no text is ErrNoReply.
func decodeGoogle(body []byte) (string, error) {
	var r geminiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnexpectedResponse, err)
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
		return "", fmt.Errorf("%w: promptFeedback.blockReason %s", ErrBlocked, r.PromptFeedback.BlockReason)
	}
	if len(r.Candidates) == 0 {
		return "", fmt.Errorf("%w: no candidates", ErrNoReply)
	}
	cand := r.Candidates[0]
	switch fr := cand.FinishReason; {
	case geminiBlocked[fr]:
		return "", fmt.Errorf("%w: finishReason %s", ErrBlocked, fr)
	case fr != "STOP" && fr != "MAX_TOKENS":
		return "", fmt.Errorf("%w: finishReason %q", ErrNoReply, fr)
	}
	var b strings.Builder
	for _, p := range cand.Content.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	text := strings.TrimSpace(b.String())
	if text == "" {
		return "", fmt.Errorf("%w: no text (finishReason %s)", ErrNoReply, cand.FinishReason)
	}
	return text, nil
}
