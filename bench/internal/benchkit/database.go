package benchkit

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"net/url"

	_ "github.com/lib/pq" // the PostgreSQL driver
)

// FreshDatabase creates an empty database named prefix plus a random
// suffix on the PostgreSQL server at admin (a URL with the rights to
// create databases), and returns its URL and a function that drops it
// (or, when keep, logs its name and leaves it).
func FreshDatabase(ctx context.Context, admin, prefix string, keep bool) (string, func(), error) {
	db, err := sql.Open("postgres", admin)
	if err != nil {
		return "", nil, err
	}
	name := prefix + RandomHex(4)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		db.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		defer db.Close()
		if keep {
			log.Printf("kept database %s", name)
			return
		}
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			log.Printf("drop database %s: %v", name, err)
		}
	}
	return u.String(), drop, nil
}
