// Package flows owns the platform's form flows (WhatsApp Flows): local
// drafts whose Flow JSON is checked as far as it can be without the
// platform, their creation and asset upload at the platform
// (save-to-provider), publish, deprecate, duplicate, the sync of an
// account's flows, sending a flow as an interactive message (Send, also
// for the chatbot's chat_flow node) and reading the platform's
// validation errors back readably. REST and GraphQL call it; it knows
// neither. Messages go out through messaging; the replies (nfm_reply)
// are stored by inbound and messaging.
package flows

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/formflow"
	"switchboard/internal/valid"
	"switchboard/messaging"
	"switchboard/provider"
	"switchboard/secrets"
)

// Page sizes and bounds.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
	maxName         = 200
	maxSearch       = 200
)

// Statuses of a flow.
const (
	StatusDraft      = "DRAFT"
	StatusPublished  = "PUBLISHED"
	StatusDeprecated = "DEPRECATED"
)

// Categories are the platform's flow categories. UTILITY is accepted as
// well (the spec's example); it is created at the platform as OTHER.
var Categories = []string{"SIGN_UP", "SIGN_IN", "APPOINTMENT_BOOKING", "LEAD_GENERATION", "CONTACT_US",
	"CUSTOMER_SUPPORT", "SURVEY", "SHOPPING", "OTHER", "UTILITY"}

const what = "form flow"

// Service holds the flow operations and what they use.
type Service struct {
	Client *ent.Client
	// Secrets opens the accounts' access tokens for platform calls.
	Secrets *secrets.Box
	// Provider calls the platform's Graph API.
	Provider *provider.Client
	// Messaging sends flow messages.
	Messaging *messaging.Service
	// Now is the clock (soft delete); nil is time.Now.
	Now func() time.Time
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Input is a new flow, or (Update) the fields to change: nil keeps a
// field. FlowJSON, when given, is the whole Flow JSON and its screens
// become the flow's screens; Screens alone replace the Flow JSON's
// screens. ChatAccount cannot change.
type Input struct {
	ChatAccount *string
	Name        *string
	Category    *string
	JSONVersion *string
	FlowJSON    map[string]any
	Screens     []map[string]any
}

// Filter selects flows of the list; empty fields select all.
type Filter struct {
	Account, Status, Search string
	Page, Limit             int
}

// Page is a page of flows with the total matching the filter.
type Page struct {
	Flows []*ent.FormFlow
	Total int
	Page  int
	Limit int
}

func (s *Service) live(ctx context.Context) *ent.FormFlowQuery {
	return s.db(ctx).FormFlow.Query().Where(formflow.DeletedAtIsNil())
}

// List returns the organization's flows matching f, newest first.
// Errors: invalid (page or limit below 1, an unknown status, a filter too
// long).
func (s *Service) List(ctx context.Context, f Filter) (*Page, error) {
	if f.Page < 1 || f.Limit < 1 {
		return nil, apperr.Invalidf("page and limit must be positive integers")
	}
	f.Limit = min(f.Limit, MaxPageSize)
	q := s.live(ctx)
	for field, v := range map[string]string{"account": f.Account, "status": f.Status, "search": f.Search} {
		if err := valid.Check(field, v, maxSearch); err != nil {
			return nil, err
		}
	}
	if a := strings.TrimSpace(f.Account); a != "" {
		q = q.Where(formflow.ChatAccount(a))
	}
	if st := strings.ToUpper(strings.TrimSpace(f.Status)); st != "" {
		if formflow.StatusValidator(formflow.Status(st)) != nil {
			return nil, apperr.Invalidf("status must be DRAFT, PUBLISHED or DEPRECATED")
		}
		q = q.Where(formflow.StatusEQ(formflow.Status(st)))
	}
	if t := strings.TrimSpace(f.Search); t != "" {
		q = q.Where(formflow.NameContainsFold(t))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, what)
	}
	offset := (f.Page - 1) * f.Limit
	if offset > 1<<30 {
		return nil, apperr.Invalidf("page is too large")
	}
	fs, err := q.Order(ent.Desc(formflow.FieldCreatedAt), ent.Desc(formflow.FieldID)).Offset(offset).Limit(f.Limit).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, what)
	}
	return &Page{Flows: fs, Total: total, Page: f.Page, Limit: f.Limit}, nil
}

// Get returns a flow that is not deleted. Errors: not_found.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.FormFlow, error) {
	f, err := s.live(ctx).Where(formflow.ID(id)).Only(ctx)
	return f, apperr.Wrap(err, what)
}

// content is a flow's checked name, category and Flow JSON.
type content struct {
	name, category, version string
	doc                     map[string]any
	screens                 []map[string]any
}

// Digest is the SHA-256 of a Flow JSON as uploaded (its canonical JSON
// encoding), "" for an empty one.
func Digest(doc map[string]any) string {
	if len(doc) == 0 {
		return ""
	}
	b, _ := json.Marshal(doc)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// resolve applies in to cur (nil for a new flow) and checks the result.
func resolve(cur *ent.FormFlow, in Input) (*content, error) {
	c := &content{version: DefaultJSONVersion}
	if cur != nil {
		c.name, c.category, c.version, c.doc = cur.Name, cur.Category, cur.JSONVersion, cloneDoc(cur.FlowJSON)
	}
	var err error
	if in.Name != nil || cur == nil {
		if c.name, err = valid.RequiredText("name", deref(in.Name), maxName); err != nil {
			return nil, err
		}
	}
	if in.Category != nil {
		cat := strings.ToUpper(strings.TrimSpace(*in.Category))
		if cat != "" && !contains(Categories, cat) {
			return nil, apperr.Invalidf("category must be one of %s", strings.Join(Categories, ", "))
		}
		c.category = cat
	}
	versionGiven := in.JSONVersion != nil && strings.TrimSpace(*in.JSONVersion) != ""
	if versionGiven {
		c.version = strings.TrimSpace(*in.JSONVersion)
		if !versionRE.MatchString(c.version) {
			return nil, apperr.Invalidf("json_version must be of the form major.minor, such as %q", DefaultJSONVersion)
		}
	}
	switch {
	case in.FlowJSON != nil:
		c.doc = cloneDoc(in.FlowJSON)
		if in.Screens != nil && len(c.doc) > 0 {
			if _, has := c.doc["screens"]; has && !sameJSON(c.doc["screens"], in.Screens) {
				return nil, apperr.Invalidf("screens differ from flow_json.screens: give one of them")
			}
		}
		if in.Screens != nil {
			if _, has := c.doc["screens"]; !has {
				c.doc["screens"] = anyList(in.Screens)
			}
		}
	case in.Screens != nil:
		if c.doc == nil {
			c.doc = map[string]any{}
		}
		c.doc["screens"] = anyList(in.Screens)
	}
	if len(c.doc) > 0 {
		switch v, has := c.doc["version"]; {
		case !has:
			c.doc["version"] = c.version
		case versionGiven && v != c.version:
			return nil, apperr.Invalidf("json_version %q differs from flow_json.version %v", c.version, v)
		default:
			if sv, ok := v.(string); ok {
				c.version = sv
			}
		}
		if err := CheckFlowJSON(c.doc); err != nil {
			return nil, err
		}
	} else {
		c.doc = map[string]any{}
	}
	c.screens = screensOf(c.doc)
	return c, nil
}

func (s *Service) checkAccount(ctx context.Context, db *ent.Client, name string) error {
	ok, err := db.Account.Query().Where(account.Name(name)).Exist(ctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if !ok {
		return apperr.Invalidf("chat_account: account %q not found", name)
	}
	return nil
}

// Create stores a new flow: DRAFT, local only (no platform id). Errors:
// invalid (a missing chat_account or name, an unknown account or
// category, a Flow JSON that fails CheckFlowJSON).
func (s *Service) Create(ctx context.Context, in Input) (*ent.FormFlow, error) {
	acct, err := valid.RequiredText("chat_account", deref(in.ChatAccount), maxName)
	if err != nil {
		return nil, err
	}
	c, err := resolve(nil, in)
	if err != nil {
		return nil, err
	}
	var out *ent.FormFlow
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		if err := s.checkAccount(ctx, db, acct); err != nil {
			return err
		}
		out, err = db.FormFlow.Create().SetChatAccount(acct).SetName(c.name).SetCategory(c.category).
			SetJSONVersion(c.version).SetFlowJSON(c.doc).SetScreens(c.screens).SetStatus(formflow.StatusDRAFT).
			SetHasLocalChanges(true).Save(ctx)
		return apperr.Wrap(err, what)
	})
	return out, err
}

// Update changes the given fields of a DRAFT flow. has_local_changes then
// says whether the flow differs from what the platform holds: a new name
// or category, or a Flow JSON other than the one last uploaded (always
// true for a flow never saved there). Errors: invalid
// (as Create; a chat_account given; a PUBLISHED or DEPRECATED flow),
// not_found.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*ent.FormFlow, error) {
	var out *ent.FormFlow
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		cur, err := lockFlow(ctx, db, id)
		if err != nil {
			return err
		}
		if in.ChatAccount != nil && strings.TrimSpace(*in.ChatAccount) != cur.ChatAccount {
			return apperr.Invalidf("chat_account cannot be changed")
		}
		if err := editable(cur); err != nil {
			return err
		}
		c, err := resolve(cur, in)
		if err != nil {
			return err
		}
		out, err = db.FormFlow.UpdateOneID(id).SetName(c.name).SetCategory(c.category).SetJSONVersion(c.version).
			SetFlowJSON(c.doc).SetScreens(c.screens).
			SetHasLocalChanges(metadataPending(cur, c) || localChanges(cur.ProviderFlowID, cur.ProviderJSONSha256, c.doc)).Save(ctx)
		return apperr.Wrap(err, what)
	})
	return out, err
}

// metadataPending: the platform holds a flow's name and category too, so
// changing either is a local change until the flow is saved there again
// (SaveToProvider pushes them). It stays pending across later updates: a
// flow whose changes were not its Flow JSON had a new name or category.
func metadataPending(cur *ent.FormFlow, c *content) bool {
	if c.name != cur.Name || platformCategory(c.category) != platformCategory(cur.Category) {
		return true
	}
	return cur.HasLocalChanges && !localChanges(cur.ProviderFlowID, cur.ProviderJSONSha256, cur.FlowJSON)
}

// localChanges: a flow never saved has them; a saved one when its Flow
// JSON is not the one uploaded.
func localChanges(providerID, uploaded string, doc map[string]any) bool {
	return providerID == "" || uploaded != Digest(doc)
}

// editable refuses changes to a published or deprecated flow.
func editable(f *ent.FormFlow) error {
	switch f.Status {
	case formflow.StatusPUBLISHED:
		return apperr.Invalidf("flow %q is published and cannot be edited: duplicate it and edit the copy", f.Name)
	case formflow.StatusDEPRECATED:
		return apperr.Invalidf("flow %q is deprecated and cannot be edited or sent", f.Name)
	}
	return nil
}

// Delete soft-deletes a flow: it disappears from lists and reads and can
// no longer be sent; the platform keeps its copy. Errors: not_found.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	n, err := s.db(ctx).FormFlow.Update().Where(formflow.ID(id), formflow.DeletedAtIsNil()).
		SetDeletedAt(s.now()).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, what)
	}
	if n == 0 {
		return apperr.New(apperr.NotFound, "%s not found", what)
	}
	return nil
}

// Duplicate copies a flow (any status) into a new local DRAFT of the same
// account named "<name> (copy)", or "(copy 2)" and so on when that name
// is taken. Errors: not_found.
func (s *Service) Duplicate(ctx context.Context, id uuid.UUID) (*ent.FormFlow, error) {
	var out *ent.FormFlow
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		src, err := db.FormFlow.Query().Where(formflow.ID(id), formflow.DeletedAtIsNil()).Only(ctx)
		if err != nil {
			return apperr.Wrap(err, what)
		}
		names, err := db.FormFlow.Query().Where(formflow.ChatAccount(src.ChatAccount), formflow.DeletedAtIsNil(),
			formflow.NameHasPrefix(src.Name)).Select(formflow.FieldName).Strings(ctx)
		if err != nil {
			return apperr.Wrap(err, what)
		}
		out, err = db.FormFlow.Create().SetChatAccount(src.ChatAccount).SetName(copyName(src.Name, names)).
			SetCategory(src.Category).SetJSONVersion(src.JSONVersion).SetFlowJSON(cloneDoc(src.FlowJSON)).
			SetScreens(screensOf(src.FlowJSON)).SetStatus(formflow.StatusDRAFT).SetHasLocalChanges(true).Save(ctx)
		return apperr.Wrap(err, what)
	})
	return out, err
}

// copyName is name with the first free copy suffix, cut so that the
// result stays within maxName characters.
func copyName(name string, taken []string) string {
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = true
	}
	for i := 1; ; i++ {
		suffix := " (copy)"
		if i > 1 {
			suffix = " (copy " + strconv.Itoa(i) + ")"
		}
		base := name
		if r := []rune(base); len(r)+len([]rune(suffix)) > maxName {
			base = string(r[:maxName-len([]rune(suffix))])
		}
		if !used[base+suffix] {
			return base + suffix
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// cloneDoc deep-copies a JSON object through its encoding, so that stored
// documents never share maps with a caller.
func cloneDoc(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return map[string]any{}
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func sameJSON(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	var x, y any
	_ = json.Unmarshal(ab, &x)
	_ = json.Unmarshal(bb, &y)
	return reflect.DeepEqual(x, y)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lockFlow reads a live flow, locking its row on PostgreSQL until the
// transaction ends (SQLite serialises writers by itself).
func lockFlow(ctx context.Context, db *ent.Client, id uuid.UUID) (*ent.FormFlow, error) {
	q := db.FormFlow.Query().Where(formflow.ID(id), formflow.DeletedAtIsNil())
	q.Modify(func(s *sql.Selector) {
		if s.Dialect() == dialect.Postgres {
			s.ForUpdate()
		}
	})
	f, err := q.Only(ctx)
	return f, apperr.Wrap(err, what)
}
