package graph

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/campaigns"
	"switchboard/ent"
	"switchboard/events"
	"switchboard/graph/model"
)

// pageOf turns GraphQL page and limit into an offset and a limit (limit
// def, at most 100). Errors: invalid.
func pageOf(page, limit *int, def int) (int, int, error) {
	p, l := 1, def
	if page != nil {
		p = *page
	}
	if limit != nil {
		l = *limit
	}
	switch {
	case p < 1 || p > 1_000_000:
		return 0, 0, apperr.Invalidf("page must be between 1 and 1000000")
	case l < 1:
		return 0, 0, apperr.Invalidf("limit must be a positive integer")
	}
	l = min(l, campaigns.MaxPageSize)
	return (p - 1) * l, l, nil
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CampaignsPage lists campaigns as GET /api/campaigns does.
func (r *Resolver) CampaignsPage(ctx context.Context, f campaigns.Filter, page, limit *int) (*model.CampaignPage, error) {
	offset, l, err := pageOf(page, limit, campaigns.DefaultPageSize)
	if err != nil {
		return nil, err
	}
	cs, total, err := r.Campaigns.List(ctx, f, offset, l)
	if err != nil {
		return nil, err
	}
	return &model.CampaignPage{Campaigns: cs, Total: total}, nil
}

// CampaignRecipientsPage lists a campaign's recipients.
func (r *Resolver) CampaignRecipientsPage(ctx context.Context, id uuid.UUID, status *string, page, limit *int) (*model.CampaignRecipientPage, error) {
	offset, l, err := pageOf(page, limit, campaigns.DefaultRecipientsPage)
	if err != nil {
		return nil, err
	}
	rs, total, err := r.Campaigns.Recipients(ctx, id, str(status), offset, l)
	if err != nil {
		return nil, err
	}
	return &model.CampaignRecipientPage{Recipients: rs, Total: total}, nil
}

// CampaignTemplateName is the name of the campaign's template.
func (r *Resolver) CampaignTemplateName(ctx context.Context, c *ent.Campaign) (string, error) {
	return r.Campaigns.TemplateNameOf(ctx, c)
}

// ImportCampaignRecipients imports recipients as the REST import does.
func (r *Resolver) ImportCampaignRecipients(ctx context.Context, id uuid.UUID, in []*model.CampaignRecipientInput) (*model.CampaignImportResult, error) {
	rows := make([]campaigns.RecipientInput, len(in))
	for i, x := range in {
		rows[i] = campaigns.RecipientInput{PhoneNumber: x.PhoneNumber, RecipientName: str(x.RecipientName),
			TemplateParams: x.TemplateParams, HeaderParams: x.HeaderParams}
	}
	res, err := r.Campaigns.Import(ctx, id, rows)
	if err != nil {
		return nil, err
	}
	out := &model.CampaignImportResult{Imported: res.Imported, Duplicates: res.Duplicates, Invalid: res.Invalid,
		Errors: make([]*model.CampaignImportError, len(res.Errors))}
	for i, e := range res.Errors {
		out.Errors[i] = &model.CampaignImportError{Index: e.Index, PhoneNumber: e.PhoneNumber, Message: e.Message}
	}
	return out, nil
}

// CampaignProgressOf streams the state changes and counter moves of one
// campaign the viewer may read.
func (r *Resolver) CampaignProgressOf(ctx context.Context, id uuid.UUID) (<-chan *model.CampaignProgress, error) {
	if _, err := r.Campaigns.Get(ctx, id); err != nil {
		return nil, err
	}
	keep := func(ref eventRef) bool { return ref.ID == id }
	return subscribe(ctx, r.Events, []string{events.FrameCampaignStatus, events.FrameCampaignProgress}, keep,
		func(ctx context.Context, id uuid.UUID) (*model.CampaignProgress, error) {
			c, err := r.Campaigns.Get(ctx, id)
			if err != nil {
				return nil, err
			}
			return progressOf(campaigns.NewEvent(c)), nil
		})
}

func progressOf(e campaigns.Event) *model.CampaignProgress {
	return &model.CampaignProgress{ID: e.ID, Name: e.Name, Status: e.Status, TotalRecipients: e.TotalRecipients,
		SentCount: e.SentCount, DeliveredCount: e.DeliveredCount, ReadCount: e.ReadCount, FailedCount: e.FailedCount,
		ErrorMessage: e.ErrorMessage, StartedAt: e.StartedAt, CompletedAt: e.CompletedAt}
}

// campaignInput is the operation's input from a GraphQL update.
func campaignInput(in model.UpdateCampaignInput) campaigns.Input {
	out := campaigns.Input{Name: in.Name, ChatAccount: in.ChatAccount, TemplateID: in.TemplateID,
		HeaderMediaID: in.HeaderMediaID, ScheduledAt: in.ScheduledAt}
	out.ClearSchedule = in.ClearSchedule != nil && *in.ClearSchedule
	return out
}
