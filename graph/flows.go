package graph

import (
	"context"

	"github.com/google/uuid"

	"switchboard/flows"
	"switchboard/graph/model"
)

// FormFlowPage lists form flows with the REST list's filters and paging.
func (r *Resolver) FormFlowPage(ctx context.Context, account, status, search *string, page, limit *int) (*model.FormFlowPage, error) {
	f := flows.Filter{Account: deref(account), Status: deref(status), Search: deref(search), Page: 1, Limit: flows.DefaultPageSize}
	if page != nil {
		f.Page = *page
	}
	if limit != nil {
		f.Limit = *limit
	}
	pg, err := r.Flows.List(ctx, f)
	if err != nil {
		return nil, err
	}
	return &model.FormFlowPage{Flows: pg.Flows, Total: pg.Total, Page: pg.Page, Limit: pg.Limit}, nil
}

// DuplicateFormFlow copies a flow and says so.
func (r *Resolver) DuplicateFormFlow(ctx context.Context, id uuid.UUID) (*flows.Result, error) {
	f, err := r.Flows.Duplicate(ctx, id)
	if err != nil {
		return nil, err
	}
	return &flows.Result{Flow: f, Message: "Flow duplicated"}, nil
}

// SyncFormFlows syncs an account's flows from the platform.
func (r *Resolver) SyncFormFlows(ctx context.Context, chatAccount string) (*model.FormFlowSyncResult, error) {
	res, err := r.Flows.Sync(ctx, chatAccount)
	if err != nil {
		return nil, err
	}
	msg := "Flows synced"
	if res.Skipped > 0 {
		msg = "Flows synced; some are held by another organization and were skipped"
	}
	return &model.FormFlowSyncResult{Message: msg, Synced: res.Synced, Created: res.Created, Updated: res.Updated}, nil
}
