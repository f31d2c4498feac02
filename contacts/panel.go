package contacts

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// PanelConfig lays out a contact's metadata in the contact info panel.
type PanelConfig struct {
	Sections []PanelSection
}

// PanelSection is one section of the panel.
type PanelSection struct {
	ID               string
	Label            string
	Columns          int
	Collapsible      bool
	DefaultCollapsed bool
	Order            int
	Fields           []PanelField
}

// PanelField is one row (or, in a table section, one column) of a section.
type PanelField struct {
	Key   string
	Label string
	Order int
}

// generalSection is the id of the section of the metadata's top-level
// primitives and arrays of primitives (shown as inline badges); it becomes
// "_general" when a nested section takes the id "general".
const generalSection = "general"

// BuildPanelConfig lays out metadata per the spec's display rules: top-level
// primitives and arrays of primitives (badges) are rows of a "general"
// section; an object becomes a collapsible section of key-value rows; an
// array of objects becomes a collapsible table whose columns are the union
// of the objects' keys. Only one level is laid out: deeper values are shown
// by the client as raw JSON text. Keys are taken in sorted order, so the
// layout is stable; section and field orders count from 1.
func BuildPanelConfig(metadata map[string]any) PanelConfig {
	general := PanelSection{ID: generalSection, Label: "General", Columns: 2}
	var nested []PanelSection
	for _, key := range sortedKeys(metadata) {
		switch v := metadata[key].(type) {
		case map[string]any:
			sec := PanelSection{ID: key, Label: HumanizeKey(key), Columns: 2, Collapsible: true}
			sec.Fields = panelFields(sortedKeys(v))
			nested = append(nested, sec)
		case []any:
			if cols, ok := tableColumns(v); ok {
				fields := panelFields(cols)
				nested = append(nested, PanelSection{
					ID: key, Label: HumanizeKey(key), Columns: len(fields), Collapsible: true, Fields: fields,
				})
				continue
			}
			general.Fields = append(general.Fields, PanelField{Key: key, Label: HumanizeKey(key)})
		default:
			general.Fields = append(general.Fields, PanelField{Key: key, Label: HumanizeKey(key)})
		}
	}
	cfg := PanelConfig{Sections: []PanelSection{}}
	if _, taken := metadata[generalSection]; taken && !slices.ContainsFunc(general.Fields,
		func(f PanelField) bool { return f.Key == generalSection }) {
		// A metadata object or table named "general" keeps that id.
		general.ID = "_" + generalSection
	}
	if len(general.Fields) > 0 {
		for i := range general.Fields {
			general.Fields[i].Order = i + 1
		}
		cfg.Sections = append(cfg.Sections, general)
	}
	cfg.Sections = append(cfg.Sections, nested...)
	for i := range cfg.Sections {
		cfg.Sections[i].Order = i + 1
	}
	return cfg
}

// tableColumns returns the union of the keys of a non-empty array of
// objects, in sorted order; ok is false when an element is not an object.
func tableColumns(rows []any) ([]string, bool) {
	if len(rows) == 0 {
		return nil, false
	}
	keys := map[string]any{}
	for _, row := range rows {
		obj, ok := row.(map[string]any)
		if !ok {
			return nil, false
		}
		for k := range obj {
			keys[k] = nil
		}
	}
	return sortedKeys(keys), true
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func panelFields(keys []string) []PanelField {
	fields := make([]PanelField, len(keys))
	for i, k := range keys {
		fields[i] = PanelField{Key: k, Label: HumanizeKey(k), Order: i + 1}
	}
	return fields
}

// HumanizeKey turns a metadata key into a label: words split at
// underscores, dashes, dots, spaces and camelCase humps, each capitalised
// ("order_id" and "orderId" give "Order Id").
func HumanizeKey(key string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(key)
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(runes[i-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	for i, w := range words {
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}
