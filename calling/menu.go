package calling

import (
	"context"

	"switchboard/apperr"
)

// validateMenu checks a menu before it is saved. Interim structural check
// until calling/ivr (branch calling-ivr) is merged: then it parses the
// menu with ivr.Parse and validates it against check.
func validateMenu(_ context.Context, menu map[string]any, _ *menuChecker) error {
	nodes, ok := menu["nodes"].([]any)
	if !ok {
		return apperr.Invalidf("menu.nodes must be an array of nodes")
	}
	for i, n := range nodes {
		node, ok := n.(map[string]any)
		if !ok {
			return apperr.Invalidf("menu.nodes[%d] must be an object", i)
		}
		if id, _ := node["id"].(string); id == "" {
			return apperr.Invalidf("menu.nodes[%d].id is required", i)
		}
		if typ, _ := node["type"].(string); typ == "" {
			return apperr.Invalidf("menu.nodes[%d].type is required", i)
		}
	}
	return nil
}
