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
// (newest first by ordinal), names "First Last <i>", phone numbers
// 1555<8 digits>, a tag on every tenth ("vip") and fifth ("lead"), every
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
			name := firstNames[i%len(firstNames)] + " " + lastNames[(i/len(firstNames))%len(lastNames)] + fmt.Sprintf(" %d", i)
			return []any{ids[i], created, created, org, fmt.Sprintf("1555%08d", i), name, name, "", "active", tags, "{}",
				last, "hello", 0, assigned, account, false, 0}
		})
	return ids, err
}

var (
	firstNames = []string{"Ada", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal", "Lucia", "Mateo", "Nadia", "Oskar", "Priya"}
	lastNames  = []string{"Lovelace", "Silva", "Martin", "Ivanov", "Rossi", "Haddad", "Hopper", "Tanaka", "Garcia", "Berg", "Yilmaz", "Conti", "Lopez", "Khan", "Nilsson", "Patel", "Okafor", "Dubois", "Novak", "Kowalski"}
)

// seedMessages writes n messages of org by COPY: longest of them in the
// conversation of withHistory[0], the rest round-robin over the contacts
// of withHistory (those with a last message), alternating incoming and
// outgoing, one per second back from now.
func seedMessages(ctx context.Context, db *sql.DB, org uuid.UUID, withHistory []uuid.UUID, n, longest int, now time.Time) error {
	longest = min(longest, n)
	return copyRows(ctx, db, "messages", []string{"id", "created_at", "updated_at", "organization_id", "contact_id",
		"direction", "message_type", "content", "status", "chat_account", "media_url", "media_mime_type",
		"media_filename", "error_message"}, n,
		func(i int) []any {
			contact := withHistory[0]
			if i >= longest {
				contact = withHistory[1+(i-longest)%(len(withHistory)-1)]
			}
			at := now.Add(-time.Duration(n-i) * time.Second)
			dir, status := "incoming", "read"
			if i%2 == 1 {
				dir, status = "outgoing", "delivered"
			}
			body := fmt.Sprintf(`{"body": "%s about order %d, %s"}`, phrases[i%len(phrases)], i, phrases[(i/7)%len(phrases)])
			return []any{uuid.New(), at, at, org, contact, dir, "text", body, status, "Main", "", "", "", ""}
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
		pq.Array([]string{"contact_inbox_order", "contact_organization_id_id", "contact_name_trgm",
			"contact_profile_name_trgm", "contact_phone_number_trgm", "contact_tags", "message_body_search"}))
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
