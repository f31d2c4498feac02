package graph

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vikstrous/dataloadgen"

	"switchboard/ent"
	"switchboard/messaging"
)

// loaders batch the related data that GraphQL list fields show (a team's
// member count, a role's permission count, a user's role, the name of an
// account's creator): the field resolvers of one list's rows share one
// query per kind of data instead of one query per row. They live for one
// operation, so nothing is cached across requests.
type loaders struct {
	teamMemberCount     *dataloadgen.Loader[uuid.UUID, int]
	rolePermissionCount *dataloadgen.Loader[uuid.UUID, int]
	userRole            *dataloadgen.Loader[uuid.UUID, *ent.Role]
	userName            *dataloadgen.Loader[uuid.UUID, *string]

	// conversations pages the conversations of a list's contacts
	// (Contact.messages), one loader per set of page arguments: a list's
	// contacts are asked the same page, so their pages are one batch.
	mu            sync.Mutex
	conversations map[conversationArgs]*dataloadgen.Loader[uuid.UUID, *messaging.Connection]
}

// loaderWait is how long a loader gathers the keys of one batch: the
// resolvers of a list's rows run concurrently and ask within it.
const loaderWait = 5 * time.Millisecond

func (r *Resolver) newLoaders() *loaders {
	return &loaders{
		teamMemberCount:     dataloadgen.NewLoader(countsFetch(r.Teams.MemberCounts), dataloadgen.WithWait(loaderWait)),
		rolePermissionCount: dataloadgen.NewLoader(countsFetch(r.Roles.PermissionCounts), dataloadgen.WithWait(loaderWait)),
		userRole:            dataloadgen.NewLoader(r.fetchUserRoles, dataloadgen.WithWait(loaderWait)),
		userName:            dataloadgen.NewLoader(r.fetchUserNames, dataloadgen.WithWait(loaderWait)),
		conversations:       map[conversationArgs]*dataloadgen.Loader[uuid.UUID, *messaging.Connection]{},
	}
}

type loadersKey struct{}

// WithLoaders is the gqlgen operation middleware that gives each operation
// its loaders.
func (r *Resolver) WithLoaders(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	return next(context.WithValue(ctx, loadersKey{}, r.newLoaders()))
}

// loadersOf returns the operation's loaders (fresh ones outside an
// operation, which then batch nothing).
func (r *Resolver) loadersOf(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	return r.newLoaders()
}

// countsFetch turns a batch count (ids to counts, absent ids counting 0)
// into a loader's fetch.
func countsFetch(counts func(context.Context, []uuid.UUID) (map[uuid.UUID]int, error)) func(context.Context, []uuid.UUID) ([]int, []error) {
	return func(ctx context.Context, ids []uuid.UUID) ([]int, []error) {
		m, err := counts(ctx, ids)
		out := make([]int, len(ids))
		for i, id := range ids {
			out[i] = m[id]
		}
		return out, repeatErr(err, len(ids))
	}
}

// fetchUserRoles returns each user's role in the viewer's organization
// (nil for a user who is not a member there, as a super admin may not be).
func (r *Resolver) fetchUserRoles(ctx context.Context, ids []uuid.UUID) ([]*ent.Role, []error) {
	byUser, err := r.People.UserRoles(ctx, ids)
	out := make([]*ent.Role, len(ids))
	for i, id := range ids {
		out[i] = byUser[id]
	}
	return out, repeatErr(err, len(ids))
}

// fetchUserNames returns each user's full name (nil for a user gone).
func (r *Resolver) fetchUserNames(ctx context.Context, ids []uuid.UUID) ([]*string, []error) {
	names, err := r.Accounts.UserNames(ctx, ids)
	out := make([]*string, len(ids))
	for i, id := range ids {
		if n, ok := names[id]; ok {
			out[i] = &n
		}
	}
	return out, repeatErr(err, len(ids))
}

// repeatErr gives every key of a failed batch the batch's error.
func repeatErr(err error, n int) []error {
	if err == nil {
		return nil
	}
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return errs
}

// loadUserName is the name of the user id points to, nil when id is nil
// or the user is gone.
func (r *Resolver) loadUserName(ctx context.Context, id *uuid.UUID) (*string, error) {
	if id == nil {
		return nil, nil
	}
	return r.loadersOf(ctx).userName.Load(ctx, *id)
}

// conversationArgs are a conversation page's arguments as a loader's key
// (cursors in their GraphQL form).
type conversationArgs struct {
	first, last       int
	hasFirst, hasLast bool
	after, before     string
}

func conversationArgsOf(p messaging.PageArgs) conversationArgs {
	k := conversationArgs{after: cursorKey(p.After), before: cursorKey(p.Before)}
	if p.First != nil {
		k.first, k.hasFirst = *p.First, true
	}
	if p.Last != nil {
		k.last, k.hasLast = *p.Last, true
	}
	return k
}

func cursorKey(c *ent.Cursor) string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	c.MarshalGQL(&b)
	return b.String()
}

// loadConversation is page p of the conversation of contact, a contact the
// operation read (under the viewer's privacy): the pages of a list's
// contacts are read together, and the total is the contact's message
// counter, so the contact is not read again. Pages are not cached: a
// subscription's operation (contactChanged) lives on, and its contacts'
// conversations with it.
func (r *Resolver) loadConversation(ctx context.Context, contact *ent.Contact, p messaging.PageArgs) (*messaging.Connection, error) {
	l := r.loadersOf(ctx)
	key := conversationArgsOf(p)
	l.mu.Lock()
	loader, ok := l.conversations[key]
	if !ok {
		loader = dataloadgen.NewLoader(func(ctx context.Context, ids []uuid.UUID) ([]*messaging.Connection, []error) {
			pages, err := r.Messaging.Conversations(ctx, ids, p)
			out := make([]*messaging.Connection, len(ids))
			for i, id := range ids {
				out[i] = pages[id]
			}
			return out, repeatErr(err, len(ids))
		}, dataloadgen.WithWait(loaderWait), dataloadgen.WithoutCache())
		l.conversations[key] = loader
	}
	l.mu.Unlock()
	page, err := loader.Load(ctx, contact.ID)
	if err != nil {
		return nil, err
	}
	c := *page // shared by the contact's loads of the batch
	c.TotalCount = contact.MessageCount
	return &c, nil
}
