package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// delivery is one webhook body as the platform would POST it, with its
// signature. A redelivery reuses the same delivery, byte for byte.
type delivery struct {
	body  []byte
	sig   string
	wamid string
	phone string // the sender
	dup   bool   // a redelivery of an earlier payload
}

// Meta's webhook shape for one incoming text message (see the Cloud API's
// "messages" webhook reference): object, entry[].changes[].value with
// metadata, contacts and messages.
type (
	webhookBody struct {
		Object string         `json:"object"`
		Entry  []webhookEntry `json:"entry"`
	}
	webhookEntry struct {
		ID      string          `json:"id"`
		Changes []webhookChange `json:"changes"`
	}
	webhookChange struct {
		Value webhookValue `json:"value"`
		Field string       `json:"field"`
	}
	webhookValue struct {
		MessagingProduct string           `json:"messaging_product"`
		Metadata         webhookMetadata  `json:"metadata"`
		Contacts         []webhookContact `json:"contacts"`
		Messages         []webhookMessage `json:"messages"`
	}
	webhookMetadata struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	}
	webhookContact struct {
		Profile struct {
			Name string `json:"name"`
		} `json:"profile"`
		WaID string `json:"wa_id"`
	}
	webhookMessage struct {
		From      string `json:"from"`
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Text      struct {
			Body string `json:"body"`
		} `json:"text"`
	}
)

// payloads builds the run's deliveries: run-unique message ids and sender
// numbers, signed with the account's app secret.
type payloads struct {
	srv         *server
	wamidPrefix string // wamid.bench-<run>-
	phonePrefix string // digits shared by every sender of the run
}

func (p *payloads) phone(sender int) string {
	return p.phonePrefix + fmt.Sprintf("%08d", sender)
}

// text returns a delivery of message seq from sender, stamped now.
func (p *payloads) text(seq int64, sender int, now time.Time) *delivery {
	return p.textFrom(p.phone(sender), "Bench "+strconv.Itoa(sender), p.wamidPrefix+strconv.FormatInt(seq, 10),
		"bench message "+strconv.FormatInt(seq, 10), now)
}

// textFrom returns a delivery of one text message.
func (p *payloads) textFrom(phone, name, wamid, text string, now time.Time) *delivery {
	m := webhookMessage{From: phone, ID: wamid, Timestamp: strconv.FormatInt(now.Unix(), 10), Type: "text"}
	m.Text.Body = text
	c := webhookContact{WaID: phone}
	c.Profile.Name = name
	body, _ := json.Marshal(webhookBody{
		Object: "whatsapp_business_account",
		Entry: []webhookEntry{{ID: p.srv.bizID, Changes: []webhookChange{{
			Field: "messages",
			Value: webhookValue{
				MessagingProduct: "whatsapp",
				Metadata:         webhookMetadata{DisplayPhoneNumber: "15550000000", PhoneNumberID: p.srv.phone},
				Contacts:         []webhookContact{c},
				Messages:         []webhookMessage{m},
			},
		}}}},
	})
	return &delivery{body: body, sig: p.sign(body), wamid: wamid, phone: phone}
}

// sign is X-Hub-Signature-256: HMAC-SHA256 of the raw body with the app
// secret.
func (p *payloads) sign(body []byte) string {
	mac := hmac.New(sha256.New, []byte(p.srv.secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}
