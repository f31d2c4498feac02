package flows

import (
	"context"
	"strings"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/formflow"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// Bounds of a sync: flows per page asked of the platform, and pages read.
const (
	syncPageSize = 100
	maxSyncPages = 100
)

// SyncResult counts a sync: Synced flows read from the platform, of which
// Created were new here and Updated changed here; Skipped flows are held
// by another organization (a platform id belongs to one flow).
type SyncResult struct {
	Synced, Created, Updated, Skipped int
}

// Sync reads every flow of the account's business account from the
// platform (following the after cursor) and stores them: a flow is found
// by its platform id and takes the platform's name, status and category;
// an unknown one is created (with no Flow JSON here, no local changes).
// A flow deleted here stays deleted. Flows the platform no longer lists
// are kept. Each flow is stored on its own, so a sync cut short keeps
// what it stored. Errors: invalid (unknown account, no credentials, the
// platform's refusal), unavailable.
func (s *Service) Sync(ctx context.Context, accountName string) (*SyncResult, error) {
	accountName, err := valid.RequiredText("chat_account", accountName, maxName)
	if err != nil {
		return nil, err
	}
	acc, err := s.providerAccount(ctx, accountName)
	if err != nil {
		return nil, err
	}
	all, err := provider.ReadAll(maxSyncPages, func(after string) (*provider.Page[provider.PlatformFlow], error) {
		return s.Provider.ListFlows(ctx, acc, after, syncPageSize)
	})
	if err != nil {
		return nil, provider.AppError(err)
	}
	res := &SyncResult{}
	for _, pf := range all {
		if pf.ID == "" || strings.TrimSpace(pf.Name) == "" {
			continue
		}
		if err := s.syncOne(ctx, accountName, pf, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// statusFromPlatform maps the platform's status; BLOCKED and THROTTLED
// flows are published ones the platform limits.
func statusFromPlatform(st string) (formflow.Status, bool) {
	switch strings.ToUpper(st) {
	case "DRAFT":
		return formflow.StatusDRAFT, true
	case "PUBLISHED", "BLOCKED", "THROTTLED":
		return formflow.StatusPUBLISHED, true
	case "DEPRECATED":
		return formflow.StatusDEPRECATED, true
	}
	return "", false
}

func (s *Service) syncOne(ctx context.Context, accountName string, pf provider.PlatformFlow, res *SyncResult) error {
	db := s.db(ctx)
	name := truncate(strings.TrimSpace(pf.Name), maxName)
	category := ""
	if len(pf.Categories) > 0 && contains(Categories, pf.Categories[0]) {
		category = pf.Categories[0]
	}
	status, known := statusFromPlatform(pf.Status)
	cur, err := db.FormFlow.Query().Where(formflow.ProviderFlowID(pf.ID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		if !known {
			status = formflow.StatusDRAFT
		}
		err = db.FormFlow.Create().SetChatAccount(accountName).SetProviderFlowID(pf.ID).SetName(name).
			SetCategory(category).SetStatus(status).SetHasLocalChanges(false).Exec(ctx)
		if ent.IsConstraintError(err) {
			res.Skipped++
			return nil
		}
		if err != nil {
			return apperr.Wrap(err, what)
		}
		res.Synced++
		res.Created++
		return nil
	case err != nil:
		return apperr.Wrap(err, what)
	}
	res.Synced++
	if cur.DeletedAt != nil {
		return nil
	}
	u := db.FormFlow.UpdateOneID(cur.ID)
	changed := false
	if cur.Name != name {
		u.SetName(name)
		changed = true
	}
	if known && cur.Status != status {
		u.SetStatus(status)
		changed = true
	}
	if category != "" && cur.Category != category && !(cur.Category == "UTILITY" && category == "OTHER") {
		u.SetCategory(category)
		changed = true
	}
	if !changed {
		return nil
	}
	if err := u.Exec(ctx); err != nil {
		return apperr.Wrap(err, what)
	}
	res.Updated++
	return nil
}
