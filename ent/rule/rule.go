// Package rule holds the privacy rules shared by the ent schemas. Tenant
// isolation is enforced here, once: every tenant-owned query is filtered by
// the viewer's organization and a forgotten viewer fails closed.
package rule

import (
	"context"

	"entgo.io/ent/entql"

	"switchboard/ent/privacy"
	"switchboard/ent/viewer"
)

// Bypass returns a context that skips privacy rules. It is for a few named,
// reviewed places only (login, token checks, bootstrap, the inbound webhook's
// account lookup); reason documents the call site.
func Bypass(ctx context.Context, reason string) context.Context {
	_ = reason
	return privacy.DecisionContext(ctx, privacy.Allow)
}

// DenyIfNoViewer denies any query or mutation made without a viewer.
func DenyIfNoViewer() privacy.QueryMutationRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if viewer.FromContext(ctx) == nil {
			return privacy.Denyf("viewer-context is missing")
		}
		return privacy.Skip
	})
}

// orgFilter is implemented by the generated entql filters of tenant-owned
// entities.
type orgFilter interface {
	WhereOrganizationID(entql.ValueP)
}

// FilterOrganization limits queries and mutations to the viewer's
// organization.
func FilterOrganization() privacy.QueryMutationRule {
	return privacy.FilterFunc(func(ctx context.Context, f privacy.Filter) error {
		v := viewer.FromContext(ctx)
		if !v.HasOrg() {
			return privacy.Denyf("viewer has no organization")
		}
		of, ok := f.(orgFilter)
		if !ok {
			return privacy.Denyf("unexpected filter type %T", f)
		}
		of.WhereOrganizationID(entql.ValueEQ(v.OrgID))
		return privacy.Skip
	})
}

// AllowReadWithViewer lets any viewer read (global catalogues).
func AllowReadWithViewer() privacy.QueryRule {
	return privacy.ContextQueryMutationRule(func(ctx context.Context) error {
		if viewer.FromContext(ctx) != nil {
			return privacy.Allow
		}
		return privacy.Skip
	})
}
