package graph

import (
	"fmt"
	"switchboard/accounts"

	"switchboard/ent"
)

// intValue reads an integer selected into an entity with Modify (drivers
// return int64, or []byte/string on some paths).
func intValue(v any, err error) int {
	if err != nil {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return int(n)
	case int:
		return n
	case float64:
		return int(n)
	case []byte:
		var i int
		_, _ = fmt.Sscan(string(n), &i)
		return i
	case string:
		var i int
		_, _ = fmt.Sscan(n, &i)
		return i
	}
	return 0
}

// stringValue reads a string selected into an entity with Modify.
func stringValue(v any, err error) string {
	if err != nil || v == nil {
		return ""
	}
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return fmt.Sprint(v)
}

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
