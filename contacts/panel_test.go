package contacts_test

import (
	"testing"

	"switchboard/contacts"
)

func TestPanelLayout(t *testing.T) {
	labels := []struct{ key, want string }{
		{"order_id", "Order Id"}, {"orderId", "Order Id"}, {"customer-tier", "Customer Tier"},
		{"vip", "Vip"}, {"a.b", "A B"}, {"__x__", "X"}, {"orderID", "Order ID"},
	}
	for _, tc := range labels {
		t.Run("Label_"+tc.key, func(t *testing.T) {
			if got := contacts.HumanizeKey(tc.key); got != tc.want {
				t.Errorf("HumanizeKey(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
	t.Run("GeneralKeyCollision", func(t *testing.T) {
		cfg := contacts.BuildPanelConfig(map[string]any{"general": map[string]any{"x": 1}, "plan": "gold"})
		if len(cfg.Sections) != 2 || cfg.Sections[0].ID != "_general" || cfg.Sections[1].ID != "general" {
			t.Errorf("sections: %+v", cfg.Sections)
		}
	})
	t.Run("MixedArrayIsBadges", func(t *testing.T) {
		cfg := contacts.BuildPanelConfig(map[string]any{"mixed": []any{map[string]any{"a": 1}, "b"}, "empty": []any{}})
		if len(cfg.Sections) != 1 || len(cfg.Sections[0].Fields) != 2 || cfg.Sections[0].Collapsible {
			t.Errorf("sections: %+v", cfg.Sections)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if cfg := contacts.BuildPanelConfig(nil); cfg.Sections == nil || len(cfg.Sections) != 0 {
			t.Errorf("sections: %#v", cfg.Sections)
		}
	})
}
