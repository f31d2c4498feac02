package messaging

import (
	"context"
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/ent/schema"
	"switchboard/ent/viewer"
)

// Unexported parts of the message search, for the package's external
// tests and fuzz targets.
var (
	ParseSearch   = parseSearch
	Highlight     = highlight
	PositiveTexts = positiveTexts
	BodyOf        = bodyOf
	HourLexemes   = hourLexemes
)

// SetSearchTimeout sets the bound of a search until the test ends.
func SetSearchTimeout(t interface{ Cleanup(func()) }, d time.Duration) {
	old := searchTimeout
	searchTimeout = d
	t.Cleanup(func() { searchTimeout = old })
}

// SetSearchWalkBudget sets how long a search walks until the test ends.
func SetSearchWalkBudget(t interface{ Cleanup(func()) }, d time.Duration) {
	old := searchWalkBudget
	searchWalkBudget = d
	t.Cleanup(func() { searchWalkBudget = old })
}

// StoreRacing stores msgs for org as a drainer does that another drainer
// raced: without dropping the platform ids stored already (newMessages'
// read came before the other's commit). PostgreSQL's writes only.
func (s *Service) StoreRacing(ctx context.Context, org uuid.UUID, msgs []Received) error {
	return s.inTx(viewer.SystemContext(ctx, org), func(ctx context.Context, db *ent.Client) error {
		contacts, _, err := s.upsertSenders(ctx, db, msgs)
		if err != nil {
			return err
		}
		ids := make([]uuid.UUID, len(msgs))
		for i := range ids {
			ids[i] = schema.NewID()
		}
		return pgInsertReceived(ctx, db, msgs, ids, contacts, nil)
	})
}

// RangeCapOf is rangeCapOf, for tests.
var RangeCapOf = rangeCapOf
