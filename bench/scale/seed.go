package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// sizes is what seed writes in the large organization.
type sizes struct {
	contacts, messages int
	// longest is the message count of the one long conversation (the
	// history read's contact); the rest is spread over the contacts with
	// a last message.
	longest int
	// small organizations beside it, and the contacts of each.
	orgs, smallContacts int
}

// seedContacts writes n contacts of org by COPY: 90% with a last message
// (newest first by ordinal), names and phone numbers as contactName and
// contactPhone make them, a tag on every tenth ("vip") and fifth ("lead"), every
// twentieth assigned to agent, half held from account "Main", the other
// half from "Second". Ids are returned in ordinal order.
func seedContacts(ctx context.Context, db *sql.DB, org, agent uuid.UUID, n int, now time.Time) ([]uuid.UUID, error) {
	ids := make([]uuid.UUID, n)
	err := copyRows(ctx, db, "contacts", []string{"id", "created_at", "updated_at", "organization_id", "phone_number",
		"name", "profile_name", "avatar_url", "status", "tags", "metadata", "last_message_at", "last_message_preview",
		"unread_count", "assigned_user_id", "chat_account", "marketing_opt_out", "message_count"}, n,
		func(i int) []any {
			ids[i] = uuid.New()
			created := now.Add(-time.Duration(i) * time.Minute)
			var last any
			if i%10 != 9 {
				last = now.Add(-time.Duration(i) * time.Second)
			}
			var assigned any
			if i%20 == 0 {
				assigned = agent
			}
			tags := "[]"
			switch {
			case i%10 == 0:
				tags = `["vip"]`
			case i%5 == 0:
				tags = `["lead"]`
			}
			account := "Main"
			if i%2 == 1 {
				account = "Second"
			}
			name := contactName(i)
			return []any{ids[i], created, created, org, contactPhone(i), name, name, "", "active", tags, "{}",
				last, "hello", 0, assigned, account, false, 0}
		})
	return ids, err
}

// Names and numbers as an inbox holds them. Earlier runs named contact i
// "First Last <i>" and numbered it 1555<i, 8 digits>: every name held a
// number and every phone number the same six leading digits, so any
// digits searched were trigrams of most rows (a real name holds no
// number; real numbers share a country and area code, not six digits).
// Now: one of 48 first names and a surname of three syllables (64,000 of
// them) picked by a hash of i, about three million combinations, and a
// number of a North American shape, +1, one of 20 area codes and seven
// digits that a bijection of i makes unique.
func contactName(i int) string {
	h := mix(uint64(i))
	return firstNames[h%uint64(len(firstNames))] + " " + surname(h>>8)
}

func surname(h uint64) string {
	n := uint64(len(syllables))
	s := syllables[h%n] + syllables[(h/n)%n] + syllables[(h/n/n)%n]
	return strings.ToUpper(s[:1]) + s[1:]
}

func contactPhone(i int) string {
	return fmt.Sprintf("1%d%07d", areaCodes[i%len(areaCodes)], (uint64(i)*7_919+1_234_567)%10_000_000)
}

// mix is SplitMix64's finalizer: consecutive ordinals get unrelated names.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

var (
	firstNames = []string{"Ada", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal",
		"Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Amara", "Bilal", "Carmen", "Diego", "Emeka", "Fatima", "Goran",
		"Hana", "Ibrahim", "Julia", "Kofi", "Leila", "Marco", "Nia", "Olga", "Pedro", "Quynh", "Rosa", "Sven", "Tariq",
		"Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zara", "Anil", "Beatriz", "Chen", "Daria", "Emil", "Freya"}
	syllables = []string{"ka", "lo", "ve", "mar", "ti", "ros", "an", "del", "su", "ber", "ko", "nis", "ga", "ri", "tom",
		"el", "va", "zen", "ha", "mi", "dor", "pa", "ly", "sen", "qu", "wa", "fi", "gar", "no", "cha", "bo", "ix", "ter",
		"ul", "ze", "ran", "po", "shi", "le", "mo"}
	areaCodes = []int{212, 213, 305, 312, 404, 415, 469, 503, 512, 602, 615, 617, 702, 713, 718, 786, 813, 857, 917, 929}
)

// seedMessages writes n messages of org by COPY: longest of them in the
// conversation of withHistory[0], the rest round-robin over the contacts
// of withHistory (those with a last message), alternating incoming and
// outgoing, one per second back from now.
func seedMessages(ctx context.Context, db *sql.DB, org uuid.UUID, withHistory []uuid.UUID, n, longest int, now time.Time) error {
	longest = min(longest, n)
	return copyRows(ctx, db, "messages", []string{"id", "created_at", "updated_at", "organization_id", "contact_id",
		"direction", "message_type", "content", "status", "chat_account", "media_url", "media_mime_type",
		"media_filename", "error_message", "bot_handled_at"}, n,
		func(i int) []any {
			contact := withHistory[0]
			if i >= longest {
				contact = withHistory[1+(i-longest)%(len(withHistory)-1)]
			}
			at := now.Add(-time.Duration(n-i) * time.Second)
			// An incoming message the chatbot handled when it came: left
			// unhandled, the server's chatbot sweep worked through millions
			// of them (an UPDATE each) while earlier runs read.
			dir, status, handled := "incoming", "read", any(at)
			if i%2 == 1 {
				dir, status, handled = "outgoing", "delivered", nil
			}
			body := fmt.Sprintf(`{"body": "%s about order %d, %s"}`, phrases[i%len(phrases)], i, phrases[(i/7)%len(phrases)])
			return []any{uuid.New(), at, at, org, contact, dir, "text", body, status, "Main", "", "", "", "", handled}
		})
}

var phrases = []string{"where is my parcel", "thank you so much", "can I change the delivery address",
	"the invoice is wrong", "bonjour, ma commande", "hola, necesito ayuda", "is the shop open on sunday",
	"please call me back", "refund requested", "great service"}

// copyRows streams n rows made by row into table with COPY (a prepared
// COPY ... FROM STDIN, which lib/pq streams), in one transaction, logging
// progress every million rows. table and cols are the tool's own names.
func copyRows(ctx context.Context, db *sql.DB, table string, cols []string, n int, row func(int) []any) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	st, err := tx.PrepareContext(ctx, copyStatement(table, cols))
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	start := time.Now()
	for i := range n {
		if _, err := st.ExecContext(ctx, row(i)...); err != nil {
			return fmt.Errorf("copy %s row %d: %w", table, i, err)
		}
		if (i+1)%1_000_000 == 0 {
			log.Printf("  %s: %d rows (%s)", table, i+1, time.Since(start).Round(time.Second))
		}
	}
	if _, err := st.ExecContext(ctx); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	if err := st.Close(); err != nil {
		return err
	}
	return tx.Commit()
}

// handWritten are the indexes of the versioned migrations built
// CONCURRENTLY, as the migrations write them: seed drops them before
// copying (so COPY does not maintain them row by row) and rebuilds them
// after, timed, which is what the migration costs on a database of that
// size.
func handWritten(ctx context.Context, db *sql.DB) ([][2]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT indexname, indexdef FROM pg_indexes
		WHERE schemaname = 'public' AND indexname = ANY($1) ORDER BY tablename, indexname`,
		pq.Array([]string{"contact_inbox_order", "contact_organization_id_id", "contact_names_hours",
			"contact_phone_hours", "contact_tags",
			"contact_organization_id_last_message_at_id", "message_search",
			"message_contact_id_chat_account_created_at"}))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, err
		}
		out = append(out, [2]string{name, strings.Replace(def, "CREATE INDEX", "CREATE INDEX CONCURRENTLY", 1)})
	}
	return out, rows.Err()
}

// copyStatement is the COPY ... FROM STDIN statement for table and cols,
// each quoted as an identifier.
func copyStatement(table string, cols []string) string {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = pq.QuoteIdentifier(c)
	}
	return "COPY " + pq.QuoteIdentifier(table) + " (" + strings.Join(quoted, ", ") + ") FROM STDIN"
}
