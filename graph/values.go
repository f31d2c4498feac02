package graph

import (
	"switchboard/accounts"
	"switchboard/ent"
)

// deref returns the string s points to, or "".
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ok turns an operation's error into a GraphQL boolean result.
func ok(err error) (bool, error) { return err == nil, err }

// accountOf turns an operation's account view into the GraphQL Account,
// whose names come from field resolvers.
func accountOf(v *accounts.View, err error) (*ent.Account, error) {
	if err != nil {
		return nil, err
	}
	return v.Account, nil
}

// pointers returns pointers to the elements of xs.
func pointers[T any](xs []T) []*T {
	out := make([]*T, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}
