package rest_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"switchboard/ent/contact"
	"switchboard/ent/message"
)

// BenchmarkBotKeywordReply measures the keyword reply latency end to end
// in process: a signed webhook delivery posted until the bot's reply is
// stored pending (acknowledgement, drainer, bot task, rule match, send
// stored), one message at a time, without background load. It reports
// the p50 and p99 in milliseconds. The figure under ingest load is
// bench/ingest's (see README).
func BenchmarkBotKeywordReply(b *testing.B) {
	e := newBotEnvTB(b)
	e.Admin.Do(http.MethodPost, "/api/chatbot/keywords", map[string]any{"name": "Price", "keywords": []any{"price"},
		"match_type": "contains", "response_type": "text", "response_content": map[string]any{"body": "See our prices"}}).
		ExpectStatus(b, http.StatusCreated)
	var lat []time.Duration
	base := time.Now().Unix()
	i := 0
	for b.Loop() {
		i++
		phone := fmt.Sprintf("1555900%05d", i)
		start := time.Now()
		e.postTB(b, botPayload(phone, "Bench", textMessage(phone, fmt.Sprintf("wamid.bench.%d.%d", base, i), base, "price?")))
		for {
			n, err := e.Client().Message.Query().Where(message.HasContactWith(contact.PhoneNumber(phone)),
				message.DirectionEQ(message.DirectionOutgoing)).Count(e.ctx)
			if err != nil {
				b.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Since(start) > 30*time.Second {
				b.Fatal("no reply within 30s")
			}
			time.Sleep(time.Millisecond) // the resolution of the latency measured
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
