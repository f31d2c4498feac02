package database_test

import (
	"testing"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
)

// TestOneOfPredicates: on PostgreSQL one array parameter whatever the
// number of values, so the statement's text does not change with it;
// elsewhere an IN (NOT IN) list.
func TestOneOfPredicates(t *testing.T) {
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	const msgs, dels = `SELECT * FROM "messages" WHERE "messages".`, `SELECT * FROM "webhook_deliveries" WHERE "webhook_deliveries".`
	for _, tc := range []struct {
		name, dialect, table string
		pred                 func(*sql.Selector)
		query                string
		args                 int
	}{
		{"AnyOf postgres one", dialect.Postgres, "messages", database.AnyOf("chat_message_id", []string{"a"}), msgs + `"chat_message_id" = ANY($1)`, 1},
		{"AnyOf postgres three", dialect.Postgres, "messages", database.AnyOf("chat_message_id", []string{"a", "b", "c"}), msgs + `"chat_message_id" = ANY($1)`, 1},
		{"AnyOf sqlite three", dialect.SQLite, "messages", database.AnyOf("chat_message_id", []string{"a", "b", "c"}),
			"SELECT * FROM `messages` WHERE `messages`.`chat_message_id` IN (?, ?, ?)", 3},
		{"AnyOfIDs postgres one", dialect.Postgres, "webhook_deliveries", database.AnyOfIDs("id", ids[:1]), dels + `"id" = ANY($1::uuid[])`, 1},
		{"AnyOfIDs postgres three", dialect.Postgres, "webhook_deliveries", database.AnyOfIDs("id", ids), dels + `"id" = ANY($1::uuid[])`, 1},
		{"AnyOfIDs sqlite three", dialect.SQLite, "webhook_deliveries", database.AnyOfIDs("id", ids),
			"SELECT * FROM `webhook_deliveries` WHERE `webhook_deliveries`.`id` IN (?, ?, ?)", 3},
		{"NoneOfIDs postgres", dialect.Postgres, "messages", database.NoneOfIDs("id", ids[:2]), msgs + `"id" <> ALL($1::uuid[])`, 1},
		{"NoneOfIDs sqlite", dialect.SQLite, "messages", database.NoneOfIDs("id", ids[:2]), "SELECT * FROM `messages` WHERE `messages`.`id` NOT IN (?, ?)", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sql.Dialect(tc.dialect).Select().From(sql.Table(tc.table))
			tc.pred(s)
			if query, args := s.Query(); query != tc.query || len(args) != tc.args {
				t.Fatalf("%s with %d args, want %s with %d", query, len(args), tc.query, tc.args)
			}
		})
	}
}
