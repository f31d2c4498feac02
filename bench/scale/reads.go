package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"switchboard/bench/internal/benchkit"
	"switchboard/internal/apiclient"
)

// read is one request of the inbox: a REST GET path, or a GraphQL query.
type read struct {
	name, path, graphql string
}

// readsOf lists every list, search and history read of the inbox for o.
func readsOf(o org) []read {
	contactsQL := func(args string) string {
		return `{ contacts(first: 20` + args + `) { totalCount totalCountIsEstimate edges { node { id profileName lastMessageAt } } } }`
	}
	return []read{
		{name: "REST contacts page 1", path: "/api/contacts?page=1&limit=20"},
		{name: "REST contacts page 2000", path: "/api/contacts?page=2000&limit=20"},
		{name: "REST search name (one match)", path: "/api/contacts?search=" + url.QueryEscape(o.nameTerm)},
		{name: "REST search name (broad: a first name)", path: "/api/contacts?search=nadia"},
		{name: "REST search name (part of a word: arti)", path: "/api/contacts?search=arti"},
		{name: "REST search phone digits", path: "/api/contacts?search=" + o.digits},
		{name: "REST tag filter (vip)", path: "/api/contacts?tags=vip"},
		{name: "REST history limit 50", path: "/api/contacts/" + o.history.String() + "/messages?limit=50"},
		{name: "REST history before_id", path: "/api/contacts/" + o.history.String() + "/messages?limit=50&before_id=" + o.middle.String()},
		{name: "REST history account Main", path: "/api/contacts/" + o.history.String() + "/messages?limit=50&account=Main"},
		{name: "GraphQL contacts first 20", graphql: contactsQL("")},
		{name: "GraphQL contacts search name", graphql: contactsQL(`, search: "` + o.nameTerm + `"`)},
		{name: "GraphQL contacts search digits", graphql: contactsQL(`, search: "` + o.digits + `"`)},
		{name: "GraphQL contacts tag vip", graphql: contactsQL(`, tags: ["vip"]`)},
		{name: "GraphQL contacts assigned user", graphql: contactsQL(`, where: {assignedUserID: "` + o.agent.String() + `"}`)},
		{name: "GraphQL contacts account Second", graphql: contactsQL(`, where: {chatAccount: "Second"}`)},
		{name: "GraphQL contacts by last message", graphql: contactsQL(`, orderBy: {field: LAST_MESSAGE_AT, direction: DESC}`)},
		{name: "GraphQL messages", graphql: `{ messages(contactId: "` + o.history.String() + `", limit: 50) { total messages { id } } }`},
		{name: "GraphQL messages beforeId", graphql: `{ messages(contactId: "` + o.history.String() + `", beforeId: "` + o.middle.String() + `", limit: 50) { hasMore messages { id } } }`},
		{name: "REST message search (one match)", path: "/api/messages/search?q=" + url.QueryEscape(o.messageTerm)},
		{name: "REST message search (common word: refund)", path: "/api/messages/search?q=refund"},
		{name: "REST message search (phrase)", path: "/api/messages/search?q=" + url.QueryEscape(`"change the delivery address"`)},
		{name: "REST message search (two words)", path: "/api/messages/search?q=" + url.QueryEscape("parcel sunday")},
		{name: "REST message search (no match)", path: "/api/messages/search?q=zebra"},
		{name: "GraphQL searchMessages", graphql: `{ searchMessages(query: "invoice", first: 20) { edges { cursor node { snippet contact { id } message { id } } } pageInfo { hasNextPage endCursor } } }`},
		{name: "REST chatbot transfers", path: "/api/chatbot/transfers"},
		{name: "REST chatbot transfers (active)", path: "/api/chatbot/transfers?status=active&include=all"},
		{name: "REST chatbot transfers (offset 20000)", path: "/api/chatbot/transfers?offset=20000&limit=20"},
		{name: "REST chatbot sessions", path: "/api/chatbot/sessions"},
		{name: "REST chatbot sessions (active)", path: "/api/chatbot/sessions?status=active"},
		{name: "REST chatbot sessions (timeout)", path: "/api/chatbot/sessions?status=timeout"},
		{name: "REST chatbot sessions (page 1000)", path: "/api/chatbot/sessions?page=1000&limit=20"},
		{name: "REST call logs", path: "/api/call-logs"},
		{name: "REST call logs (missed)", path: "/api/call-logs?status=missed"},
		{name: "REST call logs (phone digits)", path: "/api/call-logs?phone=" + o.digits},
		{name: "REST call logs (page 1000)", path: "/api/call-logs?page=1000&limit=50"},
		{name: "REST templates", path: "/api/templates"},
		{name: "REST templates (approved, search)", path: "/api/templates?status=APPROVED&search=template_19"},
		{name: "REST campaign recipients", path: "/api/campaigns/" + o.campaign.String() + "/recipients"},
		{name: "REST campaign recipients (failed)", path: "/api/campaigns/" + o.campaign.String() + "/recipients?status=failed"},
		{name: "REST campaign recipients (page 1000)", path: "/api/campaigns/" + o.campaign.String() + "/recipients?page=1000&limit=20"},
	}
}

// result is one read's latency over every request of every reader.
type result struct {
	read    read
	lat     benchkit.Latency
	slowest []sample
	errors  int
	first   string
}

// sample is one request's latency and when in its read's run it was due:
// whether a read's tail is its first, cold requests or spread over the
// run tells a cold cache from contention.
type sample struct {
	at, took time.Duration
}

// slowestOf returns the n slowest of samples, slowest first.
func slowestOf(samples []sample, n int) []sample {
	s := slices.Clone(samples)
	slices.SortFunc(s, func(a, b sample) int { return cmp.Compare(b.took, a.took) })
	return s[:min(n, len(s))]
}

// tooks returns the latencies of samples.
func tooks(samples []sample) []time.Duration {
	d := make([]time.Duration, len(samples))
	for i, s := range samples {
		d[i] = s.took
	}
	return d
}

func (s sample) String() string {
	return fmt.Sprintf("%.1f ms at +%.2f s", benchkit.Ms(s.took), s.at.Seconds())
}

// measure runs each read in turn: agents readers each send requests of
// it, together, back to back; or, with pace, each reader one request
// every pace, the readers' schedules spread over the interval (open
// loop: a request's latency counts from when it was due, so a server
// that falls behind shows it as latency instead of being offered less).
func measure(ctx context.Context, api *apiclient.Client, reads []read, agents, requests int, pace time.Duration) []result {
	out := make([]result, len(reads))
	for i, r := range reads {
		var (
			mu      sync.Mutex
			samples []sample
			wg      sync.WaitGroup
		)
		res := &out[i]
		res.read = r
		start := time.Now()
		for a := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				due := start.Add(time.Duration(a) * pace / time.Duration(agents))
				for range requests {
					if pace > 0 {
						time.Sleep(time.Until(due))
					} else {
						due = time.Now()
					}
					err := do(ctx, api, r)
					d, at := time.Since(due), due.Sub(start)
					due = due.Add(pace)
					mu.Lock()
					if err != nil {
						res.errors++
						if res.first == "" {
							res.first = err.Error()
						}
					} else {
						samples = append(samples, sample{at: at, took: d})
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		res.lat = benchkit.Summarize(tooks(samples))
		res.slowest = slowestOf(samples, 3)
		if res.errors > 0 {
			log.Printf("%s: %d errors, first: %s", r.name, res.errors, res.first)
		}
	}
	return out
}

// do sends one read and checks its answer (HTTP 200, no GraphQL error).
func do(ctx context.Context, api *apiclient.Client, r read) error {
	if r.path != "" {
		return api.Call(ctx, http.MethodGet, r.path, nil, http.StatusOK, nil)
	}
	body, _ := json.Marshal(map[string]string{"query": r.graphql})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api.Base+"/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+api.Token)
	if api.OrgHeader != "" {
		req.Header.Set("X-Organization-ID", api.OrgHeader)
	}
	resp, err := api.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || bytes.Contains(raw, []byte(`"errors"`)) {
		return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, raw)
	}
	return nil
}

// report prints the run's figures as markdown tables.
func report(f flags, w *world, alone, big, small []result) {
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 1, ' ', 0)
	defer out.Flush()
	mode := "back to back"
	if f.pace > 0 {
		mode = fmt.Sprintf("each reader one request every %s (open loop, latency from the due time)", f.pace)
	}
	fmt.Fprintf(out, "\n%s: %d contacts, %d messages (longest conversation %d) in one organization, %d organizations of %d contacts beside it; %d readers x %d requests per read, %s\n",
		time.Now().UTC().Format("2006-01-02 15:04"), f.sz.contacts, f.sz.messages, f.sz.longest, f.sz.orgs, f.sz.smallContacts, f.agents, f.requests, mode)
	if f.reuse != "" {
		fmt.Fprintf(out, "database %s reused as an earlier run seeded it (its sizes, not the flags')\n", f.reuse)
	}
	if f.beside != "" {
		fmt.Fprintf(out, "beside the large organization's readers: %s\n", f.beside)
	}
	fmt.Fprintf(out, "seeded in %s; counters backfilled in %s; tag order backfilled in %s\n", w.seedTime.Round(time.Second),
		w.backfill.Round(time.Millisecond), w.tagBackfill.Round(time.Millisecond))
	var total time.Duration
	var builds []string
	for _, b := range w.indexBuilds {
		total += b.took
		builds = append(builds, fmt.Sprintf("%s %s", b.name, b.took.Round(time.Millisecond)))
	}
	fmt.Fprintf(out, "hand-written indexes built CONCURRENTLY in %s: %s\n", total.Round(time.Millisecond), strings.Join(builds, ", "))
	fmt.Fprintf(out, "messages table (%d rows): heap+TOAST %.2f GB, indexes %.2f GB, %.0f bytes per message\n\n",
		w.messageRows, gb(w.messagesHeap), gb(w.messagesIndexes), float64(w.messagesHeap+w.messagesIndexes)/float64(max(w.messageRows, 1)))
	fmt.Fprintln(out, "| read\t| alone p50 ms\t| alone p99 ms\t| large p50 ms\t| large p99 ms\t| small p50 ms\t| small p99 ms\t| errors |")
	fmt.Fprintln(out, "|---\t|---\t|---\t|---\t|---\t|---\t|---\t|--- |")
	for i, r := range big {
		a, s := alone[i], small[i]
		fmt.Fprintf(out, "| %s\t| %.1f\t| %.1f\t| %.1f\t| %.1f\t| %.1f\t| %.1f\t| %d |\n",
			r.read.name, a.lat.P50, a.lat.P99, r.lat.P50, r.lat.P99, s.lat.P50, s.lat.P99, a.errors+r.errors+s.errors)
	}
	fmt.Fprintln(out, "\nalone: the large organization, one client, requests back to back; large and small: -agents readers together")
	fmt.Fprintln(out, "\nthe large organization's three slowest requests of each read, with when they were due in its run:")
	for _, r := range big {
		fmt.Fprintf(out, "- %s: %s\n", r.read.name, joinSamples(r.slowest))
	}
}

func joinSamples(s []sample) string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.String()
	}
	return strings.Join(out, ", ")
}

func gb(b int64) float64 { return float64(b) / (1 << 30) }
