// Package tags owns the organization's tag catalogue: tag names and colors,
// unique per organization, and the rule that contacts keep carrying tags by
// name, so renaming or deleting a tag rewrites the contacts that carry it
// in the same transaction. Transports (rest/, graph/) call its Service.
package tags

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/contact"
	"switchboard/ent/predicate"
	"switchboard/ent/tag"
	"switchboard/events"
	"switchboard/internal/valid"
	"switchboard/messaging"
)

// MaxNameLength bounds a tag name, in a contact's tags as in the catalogue.
const MaxNameLength = 64

// DefaultColor is the color of a tag created without one.
const DefaultColor = "gray"

// Colors is the palette a tag's color is chosen from.
var Colors = []string{"blue", "red", "green", "yellow", "purple", "gray"}

// errDuplicate answers a second tag of the same name.
const errDuplicate = "a tag with this name already exists"

// Service is the tag catalogue's operations.
type Service struct {
	Client *ent.Client
	// Events records contact:updated for contacts a rename or delete
	// rewrites.
	Events *events.Bus
}

// Filter selects tags of a list.
type Filter struct {
	// Search matches the name (case-insensitive).
	Search string
}

// Page is one page of tags with the total of the filter.
type Page struct {
	Tags  []*ent.Tag
	Total int
}

// CreateInput is a new tag; a nil Color takes DefaultColor.
type CreateInput struct {
	Name  string
	Color *string
}

// UpdateInput renames a tag or changes its color; nil fields keep their
// value.
type UpdateInput struct {
	Name  *string
	Color *string
}

// NormalizeName trims a tag name and checks it. Errors: invalid (empty,
// longer than MaxNameLength characters, a NUL character).
func NormalizeName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", apperr.Invalidf("tags must be non-empty strings")
	case utf8.RuneCountInString(n) > MaxNameLength:
		return "", apperr.Invalidf("each tag must be at most %d characters", MaxNameLength)
	}
	if err := valid.NoNUL("tags", n); err != nil {
		return "", err
	}
	return n, nil
}

func checkColor(c string) error {
	if !slices.Contains(Colors, c) {
		return apperr.Invalidf("color must be one of %s", strings.Join(Colors, ", "))
	}
	return nil
}

// HasTag matches contacts whose tags hold name (JSON containment on
// PostgreSQL, json_each on SQLite).
func HasTag(name string) predicate.Contact {
	return func(s *sql.Selector) {
		s.Where(sqljson.ValueContains(s.C(contact.FieldTags), name))
	}
}

// Query returns the tags of the viewer's organization matching f. Errors:
// invalid (a NUL character in the filter).
func (s *Service) Query(ctx context.Context, f Filter) (*ent.TagQuery, error) {
	if err := valid.NoNUL("search", f.Search); err != nil {
		return nil, err
	}
	q := database.ClientFor(ctx, s.Client).Tag.Query()
	if t := strings.TrimSpace(f.Search); t != "" {
		q = q.Where(tag.NameContainsFold(t))
	}
	return q, nil
}

// List returns a page of Query ordered by name. Errors: invalid.
func (s *Service) List(ctx context.Context, f Filter, offset, limit int) (*Page, error) {
	q, err := s.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "tag")
	}
	ts, err := q.Order(tag.ByName(), tag.ByID()).Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "tag")
	}
	return &Page{Tags: ts, Total: total}, nil
}

// Get returns the tag named name. Errors: not_found.
func (s *Service) Get(ctx context.Context, name string) (*ent.Tag, error) {
	t, err := database.ClientFor(ctx, s.Client).Tag.Query().Where(tag.Name(strings.TrimSpace(name))).Only(ctx)
	return t, apperr.Wrap(err, "tag")
}

// Create adds a tag to the catalogue. Errors: invalid (name, color),
// conflict (the name is taken).
func (s *Service) Create(ctx context.Context, in CreateInput) (*ent.Tag, error) {
	name, err := NormalizeName(in.Name)
	if err != nil {
		return nil, err
	}
	color := DefaultColor
	if in.Color != nil && *in.Color != "" {
		color = *in.Color
	}
	if err := checkColor(color); err != nil {
		return nil, err
	}
	t, err := database.ClientFor(ctx, s.Client).Tag.Create().SetName(name).SetColor(color).Save(ctx)
	return t, conflictOr(err)
}

// Update renames the tag named name or changes its color. A rename
// replaces the name on every contact that carries it, in the same
// transaction. Errors: not_found, invalid (name, color), conflict (the
// new name is taken).
func (s *Service) Update(ctx context.Context, name string, in UpdateInput) (*ent.Tag, error) {
	var newName string
	if in.Name != nil {
		n, err := NormalizeName(*in.Name)
		if err != nil {
			return nil, err
		}
		newName = n
	}
	if in.Color != nil && *in.Color != "" {
		if err := checkColor(*in.Color); err != nil {
			return nil, err
		}
	}
	var out *ent.Tag
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		t, err := s.Get(ctx, name)
		if err != nil {
			return err
		}
		u := db.Tag.UpdateOne(t)
		if in.Color != nil && *in.Color != "" {
			u.SetColor(*in.Color)
		}
		renamed := newName != "" && newName != t.Name
		if renamed {
			u.SetName(newName)
		}
		if out, err = u.Save(ctx); err != nil {
			return conflictOr(err)
		}
		if renamed {
			return s.rewriteContacts(ctx, db, t.Name, newName)
		}
		return nil
	})
	return out, err
}

// Delete removes the tag named name from the catalogue and from every
// contact that carries it, in one transaction. Errors: not_found.
func (s *Service) Delete(ctx context.Context, name string) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		t, err := s.Get(ctx, name)
		if err != nil {
			return err
		}
		if err := db.Tag.DeleteOne(t).Exec(ctx); err != nil {
			return apperr.Wrap(err, "tag")
		}
		return s.rewriteContacts(ctx, db, t.Name, "")
	})
}

func conflictOr(err error) error {
	if ent.IsConstraintError(err) {
		return &apperr.Error{Code: apperr.Conflict, Message: errDuplicate, Err: err}
	}
	return apperr.Wrap(err, "tag")
}

// updateChunk bounds the contact ids of one UPDATE (PostgreSQL takes at
// most 65,535 bind parameters).
const updateChunk = 5000

// rewriteContacts replaces the tag old by renamed on every contact that
// carries it, or removes it when renamed is empty. The contacts are locked
// (on PostgreSQL) while read, so a concurrent rewrite waits; contacts that
// end up with the same tags are updated by one statement. Each rewritten
// contact announces contact:updated.
func (s *Service) rewriteContacts(ctx context.Context, db *ent.Client, old, renamed string) error {
	cs, err := db.Contact.Query().Where(HasTag(old)).
		Select(contact.FieldID, contact.FieldTags).
		Modify(func(s *sql.Selector) {
			if s.Dialect() == dialect.Postgres {
				s.ForUpdate()
			}
		}).All(ctx)
	if err != nil {
		return apperr.Wrap(err, "contact")
	}
	groups := map[string][]uuid.UUID{}
	for _, c := range cs {
		key, err := json.Marshal(replaced(c.Tags, old, renamed))
		if err != nil {
			return err
		}
		groups[string(key)] = append(groups[string(key)], c.ID)
	}
	for key, ids := range groups {
		var next []string
		if err := json.Unmarshal([]byte(key), &next); err != nil {
			return err
		}
		for chunk := range slices.Chunk(ids, updateChunk) {
			if err := db.Contact.Update().Where(contact.IDIn(chunk...)).SetTags(next).Exec(ctx); err != nil {
				return apperr.Wrap(err, "contact")
			}
		}
	}
	return s.announce(ctx, db, cs)
}

// announce records contact:updated for each rewritten contact, as it now
// reads.
func (s *Service) announce(ctx context.Context, db *ent.Client, rewritten []*ent.Contact) error {
	if s.Events == nil {
		return nil
	}
	ids := make([]uuid.UUID, len(rewritten))
	for i, c := range rewritten {
		ids[i] = c.ID
	}
	for chunk := range slices.Chunk(ids, updateChunk) {
		cs, err := db.Contact.Query().Where(contact.IDIn(chunk...)).All(ctx)
		if err != nil {
			return apperr.Wrap(err, "contact")
		}
		evs := make([]events.Event, len(cs))
		for i, c := range cs {
			evs[i] = events.Event{Type: events.ContactUpdated, OrgID: c.OrganizationID, Payload: messaging.NewContactEvent(c)}
		}
		if err := s.Events.Record(ctx, evs...); err != nil {
			return apperr.Wrap(err, "event")
		}
	}
	return nil
}

// replaced returns tags with old replaced by renamed in place (dropped
// when renamed is empty or the contact already carries it).
func replaced(tags []string, old, renamed string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		switch {
		case t != old:
			out = append(out, t)
		case renamed != "" && !slices.Contains(tags, renamed):
			out = append(out, renamed)
		}
	}
	return out
}
