package schema

import "time"

// Defaults shared by the resource schemas (contacts, messages, chatbot,
// campaigns, calling, webhooks, ...).

// emptyJSONMap is the default of JSON object fields. It is a function so
// every new row gets its own map instead of sharing one package-level value.
func emptyJSONMap() map[string]any { return map[string]any{} }

// emptyJSONList is the default of JSON array-of-object fields; stored as
// `[]`, never `null`, so database JSON array functions keep working.
func emptyJSONList() []map[string]any { return []map[string]any{} }

// emptyStringMap is the default of JSON string-to-string map fields.
func emptyStringMap() map[string]string { return map[string]string{} }

// nowUTC is the default of event timestamps (transferred_at, started_at,
// ...): UTC, like created_at, so stored times compare consistently.
func nowUTC() time.Time { return time.Now().UTC() }
