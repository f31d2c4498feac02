package database_test

import (
	"context"
	"fmt"
	"testing"

	"switchboard/database"
	"switchboard/ent/contact"
	"switchboard/ent/message"
	"switchboard/ent/organization"
	"switchboard/internal/testenv"
	"switchboard/internal/testkit"
)

// TestCounters checks on both engines that the triggers keep the
// organization's contact count and a contact's message count through
// ent's creates (one and bulk), a statement of hand-written SQL, deletes
// and the cascade of a contact's delete, and that a second AutoMigrate
// keeps them.
func TestCounters(t *testing.T) {
	engines := []struct {
		name string
		open func(t *testing.T) *database.DB
	}{
		{"SQLite", func(t *testing.T) *database.DB {
			db, err := database.Open(context.Background(), database.Options{DataDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			if err := db.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			return db
		}},
	}
	if testenv.PostgresURL(t) != "" {
		engines = append(engines, struct {
			name string
			open func(t *testing.T) *database.DB
		}{"PostgreSQL", func(t *testing.T) *database.DB { return testkit.OpenDB(t) }})
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			c := db.Client
			orgID, ctx := testkit.NewOrg(t, c, "acme")
			otherID, other := testkit.NewOrg(t, c, "globex")
			a, err := c.Contact.Create().SetPhoneNumber("15550000001").Save(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Contact.CreateBulk(c.Contact.Create().SetPhoneNumber("15550000002"),
				c.Contact.Create().SetPhoneNumber("15550000003")).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := c.Contact.Create().SetPhoneNumber("15550000009").Exec(other); err != nil {
				t.Fatal(err)
			}
			b, err := c.Contact.Query().Where(contact.PhoneNumber("15550000002")).Only(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if err := c.Message.Create().SetContactID(a.ID).SetDirection(message.DirectionIncoming).
					SetMessageType("text").SetChatMessageID(fmt.Sprint("wamid.a", i)).Exec(ctx); err != nil {
					t.Fatal(err)
				}
				if err := c.Message.Create().SetContactID(b.ID).SetDirection(message.DirectionIncoming).
					SetMessageType("text").SetChatMessageID(fmt.Sprint("wamid.b", i)).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// A delete of several rows in one statement.
			if _, err := c.Message.Delete().Where(message.ChatMessageIDIn("wamid.a0", "wamid.a1")).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := c.Contact.DeleteOneID(b.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.AutoMigrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			counts := func() (acme, globex, messages int) {
				t.Helper()
				acme = c.Organization.Query().Where(organization.ID(orgID)).OnlyX(ctx).ContactCount
				globex = c.Organization.Query().Where(organization.ID(otherID)).OnlyX(other).ContactCount
				return acme, globex, c.Contact.GetX(ctx, a.ID).MessageCount
			}
			if acme, globex, messages := counts(); acme != 2 || globex != 1 || messages != 1 {
				t.Fatalf("contact counts %d and %d, message count %d; want 2, 1, 1", acme, globex, messages)
			}
		})
	}
}
