package chatbot

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/message"
	"switchboard/flows"
	"switchboard/transfers"
)

// RequestTimeout bounds an api_call's, webhook's or AI context's request.
const RequestTimeout = 10 * time.Second

// maxAnswerBytes caps what is read of an api_call's answer.
const maxAnswerBytes = 1 << 20

// ErrFormFlowsUnavailable is a chat_flow node met by a bot with no form
// flows service (Bot.Forms): the session is cancelled and the error logged.
var ErrFormFlowsUnavailable = &flowError{"chat_flow nodes cannot send platform form flows: the bot has no form flows service"}

// flowEnv is the FlowEnv of a session handled in a transaction.
type flowEnv struct {
	t       *turn
	session *ent.ChatbotSession
}

func (e *flowEnv) Send(ctx context.Context, r Reply) error {
	return e.t.send(ctx, message.BotSourceFlow, r)
}

func (e *flowEnv) Call(ctx context.Context, req HTTPRequest) (HTTPResult, error) {
	return e.t.b.do(ctx, req)
}

// Fire makes the request after the commit, in the background: a webhook
// node's result is ignored, and a rolled-back step fires nothing.
func (e *flowEnv) Fire(ctx context.Context, req HTTPRequest) {
	b := e.t.b
	bg := context.WithoutCancel(ctx)
	database.AfterCommit(ctx, func() {
		go func() {
			if _, err := b.do(bg, req); err != nil {
				b.log().Warn("chatbot webhook node request failed", "url", req.URL, "err", err)
			}
		}()
	})
}

func (e *flowEnv) Transfer(ctx context.Context, teamID *uuid.UUID, notes string) error {
	m := e.t.msg
	_, err := e.t.b.Transfers.Create(ctx, transfers.CreateInput{
		ContactID: m.ContactID, ChatAccount: m.ChatAccount, TeamID: teamID, Notes: notes, Source: "flow",
	})
	if apperr.CodeOf(err) == apperr.Conflict {
		return nil // already with a human
	}
	return err
}

// SendForm sends the node's form flow (by local or platform id) as an
// interactive flow message, through the operation every flow send uses;
// header, body and CTA take the session's variables. A flow that cannot
// be sent (a draft, deprecated or deleted one, a closed service window) is
// logged and the flow goes on, as for the bot's other replies.
func (e *flowEnv) SendForm(ctx context.Context, c NodeConfig, vars map[string]any) error {
	b := e.t.b
	if b.Forms == nil {
		return ErrFormFlowsUnavailable
	}
	all := e.t.vars(vars)
	_, err := b.Forms.Send(ctx, flows.SendInput{
		ContactID: e.t.msg.ContactID, Flow: c.FlowID,
		Header: strings.TrimSpace(Substitute(c.Header, all)), Body: strings.TrimSpace(Substitute(c.Body, all)),
		CTA: strings.TrimSpace(Substitute(c.CTA, all)), BotSource: string(message.BotSourceFlow),
	})
	if k := apperr.CodeOf(err); err != nil && (k == apperr.Invalid || k == apperr.NotFound) {
		b.log().Warn("chatbot form flow not sent", "contact_id", e.t.msg.ContactID, "flow", c.FlowID, "err", err)
		return nil
	}
	return err
}

func (e *flowEnv) Warn(msg string, args ...any) {
	e.t.b.log().Warn(msg, append(args, "session_id", e.session.ID, "contact_id", e.t.msg.ContactID)...)
}

func (e *flowEnv) InHours(schedule []ScheduleDay) bool {
	return InBusinessHours(schedule, e.t.location(), e.t.b.now())
}

func (e *flowEnv) Flow(ctx context.Context, id uuid.UUID) (*Graph, error) {
	return e.t.b.graph(ctx, id)
}

// location is the organization's time zone (UTC when it cannot be read).
func (t *turn) location() *time.Location {
	if t.loc == nil {
		t.loc = time.UTC
		if l, err := t.b.Config.OrganizationLocation(t.ctx); err == nil {
			t.loc = l
		}
	}
	return t.loc
}

// do makes a request on the guarded client, with a timeout, reading at
// most maxAnswerBytes of the answer.
func (b *Bot) do(ctx context.Context, req HTTPRequest) (HTTPResult, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	r, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return HTTPResult{}, err
	}
	for k, v := range req.Headers {
		r.Header.Set(k, v)
	}
	if len(req.Body) > 0 && r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if b.HTTP == nil {
		return HTTPResult{}, errors.New("chatbot: no outbound HTTP client is configured")
	}
	res, err := b.HTTP.Do(r)
	if err != nil {
		return HTTPResult{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
	return HTTPResult{Status: res.StatusCode, Body: data}, err
}
