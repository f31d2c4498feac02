package calling

import (
	"context"

	"switchboard/calling/ivr"
)

// validateMenu parses a menu (calling/ivr) and checks what it refers to
// against the flow's organization and account. Errors: invalid naming the
// node and field at fault; the lookups' own errors.
func validateMenu(ctx context.Context, menu map[string]any, check *menuChecker) error {
	g, err := ivr.Parse(menu)
	if err != nil {
		return err
	}
	return g.Validate(ctx, check)
}
