package graph

import (
	"context"

	"github.com/google/uuid"

	"switchboard/ent"
	"switchboard/events"
	"switchboard/graph/model"
	"switchboard/templates"
)

// viewTemplate unwraps a template operation's answer for GraphQL, which
// resolves the user names itself.
func viewTemplate(v *templates.View, err error) (*ent.Template, error) {
	if err != nil {
		return nil, err
	}
	return v.Template, nil
}

// TemplatePage lists templates with the REST list's filters and paging.
func (r *Resolver) TemplatePage(ctx context.Context, account, status, category, search *string, page, limit *int) (*model.TemplatePage, error) {
	f := templates.Filter{Account: deref(account), Status: deref(status), Category: deref(category), Search: deref(search),
		Page: 1, Limit: templates.DefaultPageSize}
	if page != nil {
		f.Page = *page
	}
	if limit != nil {
		f.Limit = *limit
	}
	pg, err := r.Templates.List(ctx, f)
	if err != nil {
		return nil, err
	}
	out := &model.TemplatePage{Templates: make([]*ent.Template, len(pg.Templates)), Total: pg.Total, Page: pg.Page, Limit: pg.Limit}
	for i, v := range pg.Templates {
		out.Templates[i] = v.Template
	}
	return out, nil
}

// TemplateChanges streams templates whose status, quality or category
// changed (template:status).
func (r *Resolver) TemplateChanges(ctx context.Context) (<-chan *ent.Template, error) {
	return subscribe(ctx, r.Events, []string{events.FrameTemplateStatus}, func(eventRef) bool { return true },
		func(ctx context.Context, id uuid.UUID) (*ent.Template, error) {
			return viewTemplate(r.Templates.Get(ctx, id))
		})
}
