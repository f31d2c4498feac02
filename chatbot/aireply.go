package chatbot

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"switchboard/chatbot/ai"
	"switchboard/ent"
	"switchboard/ent/message"
)

// maxContextBytes caps the text one AI context adds to a request.
const maxContextBytes = 16 << 10

// aiReply asks the AI for an answer and sends it; ok is false when no
// answer could be had (the caller sends the fallback message).
func (t *turn) aiReply(ctx context.Context) (ok bool, err error) {
	st := t.settings
	key, err := t.b.Config.AIAPIKey(st)
	if err != nil {
		t.b.log().Warn("chatbot AI reply skipped", "err", err)
		return false, nil
	}
	contexts, err := t.b.Config.EnabledContexts(ctx)
	if err != nil {
		return false, err
	}
	history, err := t.history(ctx)
	if err != nil {
		return false, err
	}
	req := ai.Request{
		Provider: st.AiProvider, Model: st.AiModel, APIKey: key, SystemPrompt: st.AiSystemPrompt,
		MaxTokens: st.AiMaxTokens, History: history,
	}
	for _, c := range MatchContexts(contexts, t.text) {
		if text := t.contextText(ctx, c); text != "" {
			req.Contexts = append(req.Contexts, text)
		}
	}
	answer, err := t.b.replier().Reply(ctx, req)
	if err != nil || strings.TrimSpace(answer) == "" {
		t.b.log().Warn("chatbot AI reply failed; sending the fallback message", "contact_id", t.msg.ContactID, "err", err)
		return false, nil
	}
	return true, t.send(ctx, message.BotSourceAi, Reply{Text: answer})
}

// history is the contact's recent conversation, oldest first, ending with
// the message being answered.
func (t *turn) history(ctx context.Context) ([]ai.Turn, error) {
	ms, err := t.db.Message.Query().
		Where(message.ContactID(t.msg.ContactID), message.CreatedAtLTE(t.msg.CreatedAt)).
		Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)).Limit(HistoryTurns).All(ctx)
	if err != nil {
		return nil, err
	}
	slices.Reverse(ms)
	out := make([]ai.Turn, 0, len(ms))
	for _, m := range ms {
		text, _ := m.Content["body"].(string)
		if strings.TrimSpace(text) == "" {
			continue
		}
		role := ai.RoleUser
		if m.Direction == message.DirectionOutgoing {
			role = ai.RoleAssistant
		}
		out = append(out, ai.Turn{Role: role, Text: text})
	}
	return out, nil
}

// contextText is an AI context's text: its static content, or what its
// API answers (the response_path part of it); a failed fetch adds
// nothing.
func (t *turn) contextText(ctx context.Context, c *ent.AIContext) string {
	if c.ContextType != ContextAPI {
		return truncateBytes(c.StaticContent, maxContextBytes)
	}
	cfg, err := ParseAPIConfig(c.APIConfig)
	if err != nil {
		return ""
	}
	vars := t.vars(nil)
	vars["message"] = t.text
	rt := requestTemplate{Method: cfg.Method, URL: cfg.URL, Headers: cfg.Headers, Body: cfg.Body}
	req, err := rt.fill(vars)
	if err != nil {
		t.b.log().Warn("chatbot AI context request not made", "context_id", c.ID, "err", err)
		return ""
	}
	res, err := t.b.do(ctx, req)
	if err != nil || res.Status < 200 || res.Status > 299 {
		t.b.log().Warn("chatbot AI context fetch failed", "context_id", c.ID, "status", res.Status, "err", err)
		return ""
	}
	v := lookup(decodeJSON(res.Body), cfg.ResponsePath)
	var text string
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		text = x
	default:
		b, _ := json.Marshal(x)
		text = string(b)
	}
	return truncateBytes(text, maxContextBytes)
}

// truncateBytes cuts s to at most n bytes on a character boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
