package flows

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/formflow"
	"switchboard/provider"
)

// Result is the answer of a platform operation: the flow and a message
// for the person who asked.
type Result struct {
	Flow    *ent.FormFlow
	Message string
}

// providerAccount loads the named account's credentials. Errors: invalid
// (unknown account, no access token or business id), internal.
func (s *Service) providerAccount(ctx context.Context, name string) (provider.Account, error) {
	a, err := s.db(ctx).Account.Query().Where(account.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return provider.Account{}, apperr.Invalidf("account %q not found", name)
	}
	if err != nil {
		return provider.Account{}, apperr.Wrap(err, "account")
	}
	switch {
	case len(a.AccessTokenEncrypted) == 0:
		return provider.Account{}, apperr.Invalidf("account %q has no access token", name)
	case a.BusinessID == "":
		return provider.Account{}, apperr.Invalidf("account %q has no business_id (WhatsApp Business Account id)", name)
	case s.Secrets == nil || s.Provider == nil:
		return provider.Account{}, apperr.New(apperr.Internal, "the platform client is not configured")
	}
	return accounts.Credentials(s.Secrets, a)
}

// platformCategory is the category sent to the platform: its own, or
// OTHER for UTILITY and none.
func platformCategory(c string) string {
	if c == "" || c == "UTILITY" || !contains(Categories, c) {
		return "OTHER"
	}
	return c
}

// pushMetadata gives the platform's flow f's name and category when it
// holds others (a flow renamed since it was saved there).
func (s *Service) pushMetadata(ctx context.Context, acc provider.Account, f *ent.FormFlow) error {
	pf, err := s.Provider.GetFlow(ctx, acc, f.ProviderFlowID)
	if err != nil {
		return provider.AppError(err)
	}
	categories := []string{platformCategory(f.Category)}
	if pf.Name == f.Name && slices.Equal(pf.Categories, categories) {
		return nil
	}
	return provider.AppError(s.Provider.UpdateFlowMetadata(ctx, acc, f.ProviderFlowID, f.Name, categories))
}

// errHeld answers a platform flow id that another row holds.
func errHeld(id string) error {
	return apperr.New(apperr.Conflict, "the platform's flow %s is already held by another form flow", id)
}

// SaveToProvider uploads a DRAFT flow to the platform: it creates the
// flow there first when it has no platform id (name and category), or
// else renames it there and sets its category when they changed here,
// then uploads the Flow JSON as the flow's FLOW_JSON asset. When the platform
// accepts it, has_local_changes becomes false and preview_url is read.
// The platform's validation errors come back as one invalid error naming
// each error's screen, component path, line and column. Errors: invalid
// (not a draft; no Flow JSON; account without credentials; the
// platform's refusal or validation errors), not_found, conflict (the
// platform's id is held by another flow), unavailable.
func (s *Service) SaveToProvider(ctx context.Context, id uuid.UUID) (*Result, error) {
	f, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if f.Status != formflow.StatusDRAFT {
		return nil, editable(f)
	}
	if len(f.FlowJSON) == 0 {
		return nil, apperr.Invalidf("flow %q has no flow_json yet: add its screens before saving it to the platform", f.Name)
	}
	if err := CheckFlowJSON(f.FlowJSON); err != nil {
		return nil, err
	}
	acc, err := s.providerAccount(ctx, f.ChatAccount)
	if err != nil {
		return nil, err
	}
	created := false
	if f.ProviderFlowID == "" {
		c, err := s.Provider.CreateFlow(ctx, acc, f.Name, []string{platformCategory(f.Category)})
		if err != nil {
			return nil, provider.AppError(err)
		}
		// Kept at once, so that a failed upload is retried on the same
		// platform flow rather than creating another.
		n, err := s.db(ctx).FormFlow.Update().Where(formflow.ID(id), formflow.ProviderFlowID("")).
			SetProviderFlowID(c.ID).Save(ctx)
		if ent.IsConstraintError(err) {
			return nil, errHeld(c.ID)
		}
		if err != nil {
			return nil, apperr.Wrap(err, what)
		}
		if n == 0 {
			return nil, apperr.New(apperr.Conflict, "flow %q was saved meanwhile; try again", f.Name)
		}
		f.ProviderFlowID, created = c.ID, true
	}
	if !created {
		if err := s.pushMetadata(ctx, acc, f); err != nil {
			return nil, err
		}
	}
	body, err := json.MarshalIndent(f.FlowJSON, "", "  ")
	if err != nil {
		return nil, apperr.Invalidf("flow_json cannot be encoded")
	}
	res, err := s.Provider.UploadFlowJSON(ctx, acc, f.ProviderFlowID, body)
	if err != nil {
		return nil, provider.AppError(err)
	}
	if len(res.ValidationErrors) > 0 {
		return nil, apperr.Invalidf("%s", DescribeValidationErrors(f.FlowJSON, res.ValidationErrors))
	}
	preview := f.PreviewURL
	if pf, err := s.Provider.GetFlow(ctx, acc, f.ProviderFlowID); err == nil {
		preview = pf.PreviewURL()
	}
	digest := Digest(f.FlowJSON)
	var out *ent.FormFlow
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		cur, err := lockFlow(ctx, db, id)
		if err != nil {
			return err
		}
		out, err = db.FormFlow.UpdateOneID(id).SetProviderJSONSha256(digest).SetPreviewURL(preview).
			SetHasLocalChanges(localChanges(cur.ProviderFlowID, digest, cur.FlowJSON)).Save(ctx)
		return apperr.Wrap(err, what)
	})
	if err != nil {
		return nil, err
	}
	msg := "Flow saved to the platform"
	if created {
		msg = "Flow created at the platform and saved"
	}
	return &Result{Flow: out, Message: msg}, nil
}

var screenPathRE = regexp.MustCompile(`^screens\[(\d+)\]`)

// DescribeValidationErrors turns the platform's validation errors of an
// uploaded Flow JSON into one readable text: for each error its message,
// the JSON path with the screen's id ("screens[0] (WELCOME).layout.
// children[1].type") and the line and column in the uploaded file.
func DescribeValidationErrors(doc map[string]any, errs []provider.FlowValidationError) string {
	screens := screensOf(doc)
	var b strings.Builder
	fmt.Fprintf(&b, "the platform found %d error(s) in the flow JSON: ", len(errs))
	for i, e := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		msg := e.Message
		if msg == "" {
			msg = e.Error
		}
		b.WriteString(strings.TrimSpace(msg))
		line, col, path := e.LineStart, e.ColumnStart, ""
		if len(e.Pointers) > 0 {
			p := e.Pointers[0]
			path, line, col = p.Path, p.LineStart, p.ColumnStart
		}
		if path != "" {
			if m := screenPathRE.FindStringSubmatch(path); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && n < len(screens) {
					if sid, _ := screens[n]["id"].(string); sid != "" {
						path = m[0] + " (" + sid + ")" + path[len(m[0]):]
					}
				}
			}
			b.WriteString(" at " + path)
		}
		if line > 0 {
			fmt.Fprintf(&b, " (line %d, column %d)", line, col)
		}
	}
	return b.String()
}

// Publish publishes a saved DRAFT at the platform: it is then live,
// sendable and no longer editable. Errors: invalid (not a draft, never
// saved, local changes not yet saved, the platform's refusal),
// not_found, unavailable.
func (s *Service) Publish(ctx context.Context, id uuid.UUID) (*Result, error) {
	f, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case f.Status != formflow.StatusDRAFT:
		return nil, apperr.Invalidf("flow %q is %s: only a draft can be published", f.Name, f.Status)
	case f.ProviderFlowID == "":
		return nil, apperr.Invalidf("flow %q is not at the platform yet: save it to the platform first", f.Name)
	case f.HasLocalChanges:
		return nil, apperr.Invalidf("flow %q has changes not saved to the platform: save it first", f.Name)
	}
	return s.transition(ctx, f, formflow.StatusDRAFT, formflow.StatusPUBLISHED, s.Provider.PublishFlow, "Flow published")
}

// Deprecate deprecates a PUBLISHED flow at the platform: it can then be
// neither edited nor sent. Errors: invalid (not published, the platform's
// refusal), not_found, unavailable.
func (s *Service) Deprecate(ctx context.Context, id uuid.UUID) (*Result, error) {
	f, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if f.Status != formflow.StatusPUBLISHED {
		return nil, apperr.Invalidf("flow %q is %s: only a published flow can be deprecated", f.Name, f.Status)
	}
	return s.transition(ctx, f, formflow.StatusPUBLISHED, formflow.StatusDEPRECATED, s.Provider.DeprecateFlow, "Flow deprecated")
}

func (s *Service) transition(ctx context.Context, f *ent.FormFlow, from, to formflow.Status,
	call func(context.Context, provider.Account, string) error, msg string) (*Result, error) {
	acc, err := s.providerAccount(ctx, f.ChatAccount)
	if err != nil {
		return nil, err
	}
	if err := call(ctx, acc, f.ProviderFlowID); err != nil {
		return nil, provider.AppError(err)
	}
	n, err := s.db(ctx).FormFlow.Update().Where(formflow.ID(f.ID), formflow.StatusEQ(from), formflow.DeletedAtIsNil()).
		SetStatus(to).Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, what)
	}
	out, err := s.Get(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	if n == 0 && out.Status != to {
		return nil, apperr.New(apperr.Conflict, "flow %q changed meanwhile; reload it", f.Name)
	}
	return &Result{Flow: out, Message: msg}, nil
}
