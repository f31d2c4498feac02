package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"switchboard/events"
)

// hookLog is a HookWriter that keeps what it is given.
type hookLog struct {
	got []events.HookEvent
	err error
}

func (h *hookLog) WriteDeliveries(_ context.Context, evs []events.HookEvent) error {
	h.got = append(h.got, evs...)
	return h.err
}

// TestRecordWritesHooksOfTheTable: Record hands the webhook writer the
// events whose type has a webhook name, with that name and the payload
// encoded once (HTML characters kept), in one call.
func TestRecordWritesHooksOfTheTable(t *testing.T) {
	org := uuid.New()
	for _, tc := range []struct {
		name string
		typ  events.Type
		hook string
	}{
		{"MessageReceived", events.MessageReceived, "message:incoming"},
		{"MessageQueued", events.MessageQueued, ""},
		{"MessageSent", events.MessageSent, "message:sent"},
		{"MessageStatusChanged", events.MessageStatusChanged, ""},
		{"ContactCreated", events.ContactCreated, "contact:created"},
		{"ContactUpdated", events.ContactUpdated, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hooks := &hookLog{}
			bus := events.New(events.Options{Hooks: hooks})
			err := bus.Record(context.Background(), events.Event{Type: tc.typ, OrgID: org, Payload: map[string]string{"body": "<b>&"}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.hook == "" {
				if len(hooks.got) != 0 {
					t.Fatalf("wrote deliveries %+v for an event without a webhook", hooks.got)
				}
				return
			}
			if len(hooks.got) != 1 || hooks.got[0].Name != tc.hook || hooks.got[0].OrgID != org ||
				string(hooks.got[0].Data) != `{"body":"<b>&"}` {
				t.Fatalf("deliveries %+v", hooks.got)
			}
		})
	}
}

func TestRecordFails(t *testing.T) {
	t.Run("HookWriterFails", func(t *testing.T) {
		bus := events.New(events.Options{Hooks: &hookLog{err: errors.New("disk full")}})
		if err := bus.Record(context.Background(), events.Event{Type: events.ContactCreated, Payload: map[string]int{}}); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("PayloadNotJSON", func(t *testing.T) {
		bus := events.New(events.Options{Hooks: &hookLog{}})
		err := bus.Record(context.Background(), events.Event{Type: events.ContactUpdated, Payload: json.RawMessage("{")})
		if err == nil {
			t.Fatal("no error")
		}
	})
}

// TestNoCallSiteWritesDeliveries: outbound webhook deliveries are written
// only by Bus.Record, so that no operation announces an event on one path
// and not the other. The test reads every hand-written Go file of the
// module.
func TestNoCallSiteWritesDeliveries(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "ent" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(rel) == "events" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "WriteDeliveries" {
				t.Errorf("%s: writes webhook deliveries itself; record a domain event with events.Bus.Record",
					fset.Position(sel.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
