package inbound

import (
	"encoding/json"
	"testing"
)

// benchDelivery is one delivery as bench/ingest posts it: one text
// message of a sender with a profile name.
const benchDelivery = `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550000000","phone_number_id":"697842683779665"},"contacts":[{"profile":{"name":"Bench 123456"},"wa_id":"1555012300123456"}],"messages":[{"from":"1555012300123456","id":"wamid.bench-b9ddf66d-123456","timestamp":"1795621979","type":"text","text":{"body":"bench message 123456"}}]},"field":"messages"}]}]}`

// BenchmarkDeliveryParse is what the ack path spends on a delivery's
// JSON, and the drainer on turning it into what is stored (the content
// encoded as the insert and the event encode it).
func BenchmarkDeliveryParse(b *testing.B) {
	body := []byte(benchDelivery)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r, full, err := parseDelivery(body)
		if err != nil || full == nil {
			b.Fatal(err)
		}
		_ = r.phoneIDs()
		_ = r.lane()
		for _, e := range full.Entry {
			for _, c := range e.Changes {
				for _, m := range c.Value.Messages {
					content := extractContent(m)
					if _, err := json.Marshal(content.Body); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}
