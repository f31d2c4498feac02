package graphiql_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"switchboard/internal/apitest"
)

// chromium finds the browser: CHROMIUM_PATH, else the first of the
// usual names on PATH. Without one the test skips, unless
// TEST_REQUIRE_BROWSER is set (as CI does), which makes it fail.
func chromium(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("CHROMIUM_PATH"), "chromium", "chromium-browser", "google-chrome"}
	for _, name := range candidates {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TEST_REQUIRE_BROWSER") != "" {
		t.Fatal("TEST_REQUIRE_BROWSER is set but no Chromium was found (install the chromium package or set CHROMIUM_PATH)")
	}
	t.Skip("no Chromium found (install the chromium package or set CHROMIUM_PATH; TEST_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// browser starts a headless Chromium with a fresh profile; problems
// collects what the pages reported: Content-Security-Policy violations,
// uncaught exceptions and console errors.
func browser(t *testing.T) (context.Context, *problems) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests may run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	p := &problems{}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	// The page's scripts cannot tell the test about violations of the
	// policy that governs them; this listener, which the browser adds to
	// each document before the page's scripts, logs each as a console
	// error.
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `document.addEventListener('securitypolicyviolation', (e) => console.error(
			'CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber));`,
	})
	if err != nil {
		t.Fatalf("adding the violation listener: %v", err)
	}
	return ctx, p
}

type problems struct {
	mu   sync.Mutex
	list []string
}

func (p *problems) add(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, s)
}

func (p *problems) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.list...)
}

func (p *problems) listen(ev any) {
	switch ev := ev.(type) {
	case *log.EventEntryAdded:
		// Network entries are answers the pages expect, such as the 401
		// of a renewal without a session.
		e := ev.Entry
		if e.Source != log.EntrySourceNetwork && (e.Level == log.EntryLevelError || e.Source == log.EntrySourceSecurity) {
			p.add(fmt.Sprintf("log %s: %s", e.Source, e.Text))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		p.add("exception: " + msg)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					parts = append(parts, string(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			p.add("console." + string(ev.Type) + ": " + strings.Join(parts, " "))
		}
	}
}

// script runs JavaScript in the page (the DevTools protocol is not bound
// by the page's policy).
func script(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](expr)(ctx, t)
		return err
	})
}

// setQuery sets the text of GraphiQL's query editor (CodeMirror 5) and
// waits until GraphiQL has parsed it (it does a moment after each change),
// so that the run button runs this query.
func setQuery(query string) chromedp.Action[chromedp.Void] {
	const editor = `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror`
	return chromedp.Steps(
		script(fmt.Sprintf(`%s.setValue(%q)`, editor, query)),
		waitUntil(fmt.Sprintf(`(() => {
			const cm = %s;
			return cm.documentAST?.loc?.source.body === cm.getValue();
		})()`, editor), 10*time.Second, "GraphiQL to parse the query"),
	)
}

// waitUntil evaluates a JavaScript condition until it holds. It asks from
// the test rather than with chromedp.Poll, whose page function needs eval,
// which the page's policy forbids.
func waitUntil(cond string, within time.Duration, what string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		for {
			ok, err := chromedp.Evaluate[bool](cond)(ctx, t)
			if err != nil || ok {
				return err
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waited %v for %s", within, what)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// responseContains waits until GraphiQL's result pane holds want; the
// error says what it holds instead.
func responseContains(want string, within time.Duration) chromedp.Action[chromedp.Void] {
	cond := fmt.Sprintf(`(() => {
		const cm = document.querySelector('.result-window .CodeMirror');
		return cm !== null && cm.CodeMirror.getValue().includes(%q);
	})()`, want)
	wait := waitUntil(cond, within, "the result pane to show "+want)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := wait(ctx, t)
		if err != nil {
			shown, _ := chromedp.Evaluate[string](`document.querySelector('.result-window')?.innerText ?? ''`)(ctx, t)
			return fmt.Errorf("%w; it shows %q", err, shown)
		}
		return nil
	})
}

// step runs actions with a time limit, so a page that never gets there
// fails the step instead of hanging the test.
func step(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// evaluate runs a JavaScript expression in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

const graphiqlShown = `document.querySelector('#graphiql, .graphiql-container') !== null`

func TestGraphiQLInBrowser(t *testing.T) {
	ctx, problems := browser(t)
	env := apitest.New(t)
	// Anything the pages reported, across all steps, fails the test.
	defer func() {
		for _, p := range problems.all() {
			t.Errorf("browser reported %s", p)
		}
	}()

	// An anonymous browser gets the sign-in form, not GraphiQL.
	step(t, ctx,
		chromedp.Navigate(env.Server.URL+"/graphql"),
		chromedp.WaitVisible(chromedp.CSS("#login")),
	)
	if title := evaluate[string](t, ctx, `document.title`); !strings.Contains(title, "Sign in") || evaluate[bool](t, ctx, graphiqlShown) {
		t.Fatalf("anonymous browser: title %q, GraphiQL shown", title)
	}

	// A wrong password is refused on the form.
	step(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#email"), "admin@example.com"),
		chromedp.SendKeys(chromedp.CSS("#password"), "not-the-password"),
		chromedp.Click(chromedp.CSS("#submit")),
		chromedp.WaitVisible(chromedp.CSS("#error")),
	)
	if msg := evaluate[string](t, ctx, `document.querySelector('#error').textContent`); !strings.Contains(strings.ToLower(msg), "invalid") {
		t.Fatalf("sign-in error shown: %q", msg)
	}

	// Signing in reloads into GraphiQL, whose query runs as the admin.
	step(t, ctx,
		script(`document.querySelector('#password').value = ''`),
		chromedp.SendKeys(chromedp.CSS("#password"), apitest.AdminPassword),
		chromedp.Click(chromedp.CSS("#submit")),
		chromedp.WaitVisible(chromedp.CSS(".graphiql-query-editor .CodeMirror")),
		setQuery("{\n  viewer {\n    user {\n      email\n    }\n    role {\n      name\n    }\n  }\n}"),
		chromedp.Click(chromedp.CSS(".graphiql-execute-button")),
		responseContains(`"email": "admin@example.com"`, 30*time.Second),
		responseContains(`"role"`, time.Second),
	)

	// The schema loaded (by introspection, through the same fetcher),
	// and GraphiQL's dialogs open under the policy.
	step(t, ctx,
		chromedp.Click(chromedp.CSS(`button[aria-label="Show Documentation Explorer"]`)),
		chromedp.WaitVisible(chromedp.CSS(".graphiql-doc-explorer-type-name, .graphiql-doc-explorer-root-type")),
		chromedp.Click(chromedp.CSS(`button[aria-label="Open settings dialog"]`)),
		chromedp.WaitVisible(chromedp.CSS(".graphiql-dialog")),
		chromedp.Click(chromedp.CSS(".graphiql-dialog-close")),
		chromedp.WaitNotPresent(chromedp.CSS(".graphiql-dialog")),
	)

	// A cookie-authenticated POST without X-CSRF-Token is refused, so
	// the mutation's data shows the page sends it.
	step(t, ctx,
		setQuery(`mutation { createTeam(input: {name: "From GraphiQL"}) { name } }`),
		chromedp.Click(chromedp.CSS(".graphiql-execute-button")),
		responseContains(`"name": "From GraphiQL"`, 30*time.Second),
	)

	// A subscription runs over the WebSocket, authenticated by a
	// single-use token the page fetches. Events before the subscription
	// registers are not replayed, so contacts are created until one shows.
	step(t, ctx,
		setQuery("subscription {\n  contactChanged {\n    profileName\n  }\n}"),
		chromedp.Click(chromedp.CSS(".graphiql-execute-button")),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			var err error
			for i := range 40 {
				env.Admin.Do(http.MethodPost, "/api/contacts", map[string]any{
					"phone_number": fmt.Sprintf("1555010%04d", i), "profile_name": "Subscribed Contact",
				}).ExpectStatus(t, http.StatusCreated)
				if _, err = responseContains(`"profileName": "Subscribed Contact"`, time.Second)(ctx, tg); err == nil {
					return nil
				}
			}
			return fmt.Errorf("no contactChanged event reached GraphiQL: %w", err)
		}),
	)

	// An access token that is gone (as when it expires) is renewed with
	// the refresh cookie: by the fetcher, which then repeats the query,
	// and by the sign-in page, which then reloads into GraphiQL.
	dropAccess := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.DeleteCookies, network.DeleteCookiesParams{Name: "whm_access", URL: env.Server.URL})
		return err
	})
	step(t, ctx,
		// The run button stops the running subscription first.
		chromedp.Click(chromedp.CSS(".graphiql-execute-button")),
		chromedp.WaitVisible(chromedp.CSS(`.graphiql-execute-button[aria-label^="Execute query"]`)),
		dropAccess,
		setQuery("{\n  currentOrganization {\n    id\n  }\n}"),
		chromedp.Click(chromedp.CSS(".graphiql-execute-button")),
		responseContains(`"id": "`+env.OrgID.String()+`"`, 30*time.Second),
		dropAccess,
		chromedp.Navigate(env.Server.URL+"/graphql"),
		chromedp.WaitVisible(chromedp.CSS(".graphiql-query-editor .CodeMirror")),
	)

	// Signing out ends the session: the page reloads into the sign-in
	// form.
	step(t, ctx,
		chromedp.Click(chromedp.CSS(`button[aria-label="Sign out"]`)),
		chromedp.WaitVisible(chromedp.CSS("#login")),
	)
	if evaluate[bool](t, ctx, graphiqlShown) {
		t.Fatal("GraphiQL still shown after signing out")
	}
}
