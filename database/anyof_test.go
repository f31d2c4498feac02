package database_test

import (
	"testing"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/database"
)

// TestAnyOf: on PostgreSQL one array parameter whatever the number of
// values, so the statement's text does not change with it; elsewhere an
// IN list.
func TestAnyOf(t *testing.T) {
	for _, tc := range []struct {
		name, dialect string
		values        []string
		query         string
		args          int
	}{
		{"postgres one", dialect.Postgres, []string{"a"}, `SELECT * FROM "messages" WHERE "messages"."chat_message_id" = ANY($1)`, 1},
		{"postgres three", dialect.Postgres, []string{"a", "b", "c"}, `SELECT * FROM "messages" WHERE "messages"."chat_message_id" = ANY($1)`, 1},
		{"sqlite three", dialect.SQLite, []string{"a", "b", "c"}, "SELECT * FROM `messages` WHERE `messages`.`chat_message_id` IN (?, ?, ?)", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sql.Dialect(tc.dialect).Select().From(sql.Table("messages"))
			database.AnyOf("chat_message_id", tc.values)(s)
			query, args := s.Query()
			if query != tc.query || len(args) != tc.args {
				t.Fatalf("%s with %d args, want %s with %d", query, len(args), tc.query, tc.args)
			}
		})
	}
}

func TestAnyOfIDs(t *testing.T) {
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	for _, tc := range []struct {
		name, dialect string
		ids           []uuid.UUID
		query         string
		args          int
	}{
		{"postgres one", dialect.Postgres, ids[:1], `SELECT * FROM "webhook_deliveries" WHERE "webhook_deliveries"."id" = ANY($1::uuid[])`, 1},
		{"postgres three", dialect.Postgres, ids, `SELECT * FROM "webhook_deliveries" WHERE "webhook_deliveries"."id" = ANY($1::uuid[])`, 1},
		{"sqlite three", dialect.SQLite, ids, "SELECT * FROM `webhook_deliveries` WHERE `webhook_deliveries`.`id` IN (?, ?, ?)", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sql.Dialect(tc.dialect).Select().From(sql.Table("webhook_deliveries"))
			database.AnyOfIDs("id", tc.ids)(s)
			query, args := s.Query()
			if query != tc.query || len(args) != tc.args {
				t.Fatalf("%s with %d args, want %s with %d", query, len(args), tc.query, tc.args)
			}
		})
	}
}

func TestNoneOfIDs(t *testing.T) {
	ids := []uuid.UUID{uuid.New(), uuid.New()}
	for _, tc := range []struct {
		dialect, query string
		args           int
	}{
		{dialect.Postgres, `SELECT * FROM "messages" WHERE "messages"."id" <> ALL($1::uuid[])`, 1},
		{dialect.SQLite, "SELECT * FROM `messages` WHERE `messages`.`id` NOT IN (?, ?)", 2},
	} {
		s := sql.Dialect(tc.dialect).Select().From(sql.Table("messages"))
		database.NoneOfIDs("id", ids)(s)
		if query, args := s.Query(); query != tc.query || len(args) != tc.args {
			t.Errorf("%s: %s with %d args, want %s with %d", tc.dialect, query, len(args), tc.query, tc.args)
		}
	}
}
