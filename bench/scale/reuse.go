package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"time"

	"github.com/google/uuid"

	"switchboard/internal/apiclient"
)

// reuse finds in a database an earlier run kept (-keep) what the reads
// address, as seed would have picked it: the admin's organization is the
// large one, another with contacts the small one.
func reuse(ctx context.Context, db *sql.DB, api *apiclient.Client) (*world, error) {
	w := &world{}
	admin, big, err := adminAndOrg(ctx, db, api)
	if err != nil {
		return nil, err
	}
	var small uuid.UUID
	if err := db.QueryRowContext(ctx, `SELECT organization_id FROM contacts WHERE organization_id <> $1 LIMIT 1`, big).Scan(&small); err != nil {
		return nil, fmt.Errorf("a small organization: %w", err)
	}
	for _, o := range []struct {
		id  uuid.UUID
		out *org
	}{{big, &w.big}, {small, &w.small}} {
		if *o.out, err = reused(ctx, db, o.id, admin); err != nil {
			return nil, err
		}
	}
	var unhandled int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE direction = 'incoming' AND bot_handled_at IS NULL`).Scan(&unhandled); err != nil {
		return nil, err
	}
	// A database seeded before seedMessages marked them handled: the
	// server's chatbot sweep updates each while the reads run.
	log.Printf("reusing: large organization %s, small %s; %d incoming messages the chatbot has not handled", big, small, unhandled)
	err = db.QueryRowContext(ctx, `SELECT pg_table_size('messages'), pg_indexes_size('messages'), (SELECT count(*) FROM messages)`).
		Scan(&w.messagesHeap, &w.messagesIndexes, &w.messageRows)
	return w, err
}

// reused is seedOrg's org of a seeded organization: its contacts were
// written newest first by ordinal, its messages numbered in time order.
func reused(ctx context.Context, db *sql.DB, id, agent uuid.UUID) (org, error) {
	o := org{org: id, agent: agent}
	var contacts, messages int
	if err := db.QueryRowContext(ctx, `SELECT contact_count FROM organizations WHERE id = $1`, id).Scan(&contacts); err != nil {
		return o, err
	}
	if err := db.QueryRowContext(ctx, `SELECT id, message_count FROM contacts WHERE organization_id = $1 ORDER BY message_count DESC LIMIT 1`, id).
		Scan(&o.history, &messages); err != nil {
		return o, err
	}
	if err := db.QueryRowContext(ctx, `SELECT id FROM messages WHERE contact_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT 1`,
		o.history, messages/2).Scan(&o.middle); err != nil {
		return o, err
	}
	var total int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE organization_id = $1`, id).Scan(&total); err != nil {
		return o, err
	}
	campaign, err := listsOf(ctx, db, id, agent)
	if err != nil {
		return o, err
	}
	o.campaign = campaign
	mid := contacts / 2
	o.nameTerm = contactName(mid)
	o.digits = contactPhone(mid)[5:]
	o.messageTerm = fmt.Sprintf("order %d", total/2)
	return o, nil
}

// listsOf returns the campaign seedLists wrote in organization id,
// seeding the lists first in a database kept before seedLists was (its
// contacts' creation order is their ordinal order).
func listsOf(ctx context.Context, db *sql.DB, id, agent uuid.UUID) (uuid.UUID, error) {
	var campaign uuid.UUID
	err := db.QueryRowContext(ctx, `SELECT id FROM campaigns WHERE organization_id = $1 ORDER BY total_recipients DESC LIMIT 1`, id).Scan(&campaign)
	if err != sql.ErrNoRows {
		return campaign, err
	}
	rows, err := db.QueryContext(ctx, `SELECT id FROM contacts WHERE organization_id = $1 ORDER BY created_at DESC, id`, id)
	if err != nil {
		return uuid.Nil, err
	}
	defer rows.Close()
	var ids []uuid.UUID
	for rows.Next() {
		var c uuid.UUID
		if err := rows.Scan(&c); err != nil {
			return uuid.Nil, err
		}
		ids = append(ids, c)
	}
	if err := rows.Err(); err != nil {
		return uuid.Nil, err
	}
	log.Printf("seeding the lists of %s (%d contacts)", id, len(ids))
	if campaign, err = seedLists(ctx, db, id, agent, ids, time.Now().UTC()); err != nil {
		return uuid.Nil, err
	}
	_, err = db.ExecContext(ctx, "VACUUM ANALYZE chatbot_sessions, agent_transfers, call_logs, templates, campaigns, campaign_recipients")
	return campaign, err
}
