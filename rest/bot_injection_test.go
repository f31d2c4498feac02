package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"switchboard/internal/testkit"
)

// arrival is what a fake receiver got: the escaped path, the query's
// parameters, the JSON body's members and one header.
type arrival struct {
	path    string
	query   url.Values
	members map[string]any
	header  string
}

// receiver is an httptest server recording every request it gets.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []arrival
	hdrs string // the header recorded
}

func newReceiver(t *testing.T, header string) *receiver {
	t.Helper()
	rc := &receiver{hdrs: header}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a := arrival{path: r.URL.EscapedPath(), query: r.URL.Query(), header: r.Header.Get(rc.hdrs)}
		if len(body) > 0 {
			if err := json.Unmarshal(body, &a.members); err != nil {
				a.members = map[string]any{"<not JSON>": string(body)}
			}
		}
		rc.mu.Lock()
		rc.got = append(rc.got, a)
		rc.mu.Unlock()
		_, _ = w.Write([]byte(`{"text":"ok"}`))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) arrivals() []arrival {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]arrival(nil), rc.got...)
}

// expectIntact checks that an injected value stayed a value: one path
// segment after prefix, exactly the query parameters wanted (each the
// value), exactly the JSON members wanted.
func expectIntact(t *testing.T, a arrival, prefix, value string, params, members []string) {
	t.Helper()
	seg, ok := strings.CutPrefix(a.path, prefix)
	if !ok || strings.Contains(seg, "/") {
		t.Errorf("path %q: the value left its segment after %q", a.path, prefix)
	} else if got, _ := url.PathUnescape(seg); got != value {
		t.Errorf("path segment %q decodes to %q, want %q", seg, got, value)
	}
	if got := keys(a.query); strings.Join(got, ",") != strings.Join(params, ",") {
		t.Errorf("query parameters %q, want %q", got, params)
	}
	for _, p := range params {
		if p != "phone" && a.query.Get(p) != value {
			t.Errorf("query %s = %q, want %q", p, a.query.Get(p), value)
		}
	}
	var got []string
	for k := range a.members {
		got = append(got, k)
	}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(members, ",") {
		t.Errorf("JSON members %q, want %q", got, members)
	}
	for _, m := range members {
		if a.members[m] != value {
			t.Errorf("JSON member %s = %v, want %q", m, a.members[m], value)
		}
	}
}

func keys(v url.Values) []string {
	out := make([]string, 0, len(v))
	for k := range v {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// injections are what a customer typed to reach another path, tenant or
// JSON member.
var injections = []struct{ name, text string }{
	{"PathTraversal", "../../admin/delete"},
	{"DotSegment", "x/../../admin"},
	{"QueryParameter", "a&tenant=other"},
	{"Fragment", "a#frag"},
	{"QueryStart", "a?tenant=other"},
	{"JSONMember", `a","role":"admin`},
	{"JSONBare", `1,"role":"admin"`},
	{"Mixed", `../x?tenant=other&role=admin#","role":"admin`},
}

// TestBotFlowRequestInjection: what a customer answers a prompt with is
// substituted into an api_call's and a webhook node's URL path, query and
// JSON body (a string body and an object body), and reaches the receiver
// as one value in each: the path has the template's segments, the query
// no extra parameter, the body no extra member.
func TestBotFlowRequestInjection(t *testing.T) {
	api := newReceiver(t, "X-Who")
	e := newBotEnv(t, nil)
	e.flow(t, "Inject", []any{"inject"}, []any{
		node("start", "prompt", map[string]any{"body": "Your order?", "store_as": "x"}),
		node("call", "api_call", map[string]any{"url": api.URL + "/orders/{{x}}?phone={{phone}}&q={{x}}", "method": "POST",
			"headers": map[string]any{"X-Who": "who {{x}}"},
			"body":    `{"note": "{{x}}", "bare": {{x}}}`}),
		node("hook", "webhook", map[string]any{"url": api.URL + "/hooks/{{x}}?q={{x}}", "method": "POST",
			"body": map[string]any{"note": "{{x}}"}}),
		node("bye", "end", map[string]any{"message": "Done"}),
	}, []any{edge("start", "call", "default"), edge("call", "hook", "http:2xx"), edge("call", "hook", "http:non2xx"),
		edge("hook", "bye", "default")})
	now := time.Now().Unix()
	for i, c := range injections {
		t.Run(c.name, func(t *testing.T) {
			phone := fmt.Sprintf("155512400%02d", i)
			e.deliver(t, phone, "Ana", "wamid.inj"+c.name, now, "inject")
			e.settled(t, phone, 1)
			before := len(api.arrivals())
			e.deliver(t, phone, "Ana", "wamid.inj2"+c.name, now+1, c.text)
			expectTexts(t, e.settled(t, phone, 2), "Your order?", "Done")
			testkit.Eventually(t, "the api_call and the webhook arrived", func() bool { return len(api.arrivals()) >= before+2 })
			var call, hook *arrival
			for _, a := range api.arrivals()[before:] {
				switch {
				case strings.HasPrefix(a.path, "/orders/"):
					call = &a
				case strings.HasPrefix(a.path, "/hooks/"):
					hook = &a
				}
			}
			if call == nil || hook == nil {
				t.Fatalf("arrivals %+v", api.arrivals()[before:])
			}
			expectIntact(t, *call, "/orders/", c.text, []string{"phone", "q"}, []string{"bare", "note"})
			if call.header != "who "+c.text {
				t.Errorf("header %q", call.header)
			}
			expectIntact(t, *hook, "/hooks/", c.text, []string{"q"}, []string{"note"})
		})
	}
}

// TestBotAIContextRequestInjection: the customer's message is substituted
// into an AI "api" context's URL and JSON body and reaches the receiver as
// one value.
func TestBotAIContextRequestInjection(t *testing.T) {
	api := newReceiver(t, "X-Msg")
	e := newBotEnv(t, map[string]any{"ai_enabled": true, "ai_provider": "openai", "ai_model": "gpt-test", "ai_api_key": "sk-test"})
	e.App.Bot.SetAI(&fakeReplier{})
	e.Admin.Do(http.MethodPost, "/api/chatbot/ai-contexts", map[string]any{"name": "Orders", "context_type": "api",
		"api_config": map[string]any{"url": api.URL + "/ctx/{{message}}?q={{message}}", "method": "POST",
			"headers": map[string]any{"X-Msg": "m {{message}}"}, "body": `{"q": "{{message}}", "bare": {{message}}}`,
			"response_path": "text"}}).ExpectStatus(t, http.StatusCreated)
	now := time.Now().Unix()
	for i, c := range injections {
		t.Run(c.name, func(t *testing.T) {
			phone := fmt.Sprintf("155512500%02d", i)
			before := len(api.arrivals())
			e.deliver(t, phone, "Ana", "wamid.aiinj"+c.name, now, c.text)
			e.settled(t, phone, 1)
			got := api.arrivals()[before:]
			if len(got) != 1 {
				t.Fatalf("arrivals %+v", got)
			}
			expectIntact(t, got[0], "/ctx/", c.text, []string{"q"}, []string{"bare", "q"})
			if got[0].header != "m "+c.text {
				t.Errorf("header %q", got[0].header)
			}
		})
	}
}
