package templates

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/ent/viewer"
)

// Webhook fields of template changes.
const (
	FieldStatusUpdate   = "message_template_status_update"
	FieldQualityUpdate  = "message_template_quality_update"
	FieldCategoryUpdate = "template_category_update"
)

// IsWebhookField reports whether field is a template change this package
// applies.
func IsWebhookField(field string) bool {
	return field == FieldStatusUpdate || field == FieldQualityUpdate || field == FieldCategoryUpdate
}

// PlatformUpdate is a template change reported on the platform's webhook.
type PlatformUpdate struct {
	// Field is one of FieldStatusUpdate, FieldQualityUpdate and
	// FieldCategoryUpdate.
	Field string
	// TemplateID is the platform's template id; Name and Language find a
	// template not yet linked to it.
	TemplateID, Name, Language string
	// Status (the event of a status update), Reason (a rejection's),
	// Quality (the new quality score) and Category (the new category).
	Status, Reason, Quality, Category string
}

// maxWebhookText bounds what a webhook may write into a template.
const maxWebhookText = 64

func clip(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) > maxWebhookText {
		s = s[:maxWebhookText]
	}
	return s
}

// ApplyPlatformUpdates applies changes the platform reported for the
// templates of accounts (the organization's accounts of the business
// account the webhook came from), in order, in the transaction ctx
// carries, and records template:status for each template that changed.
// A change for a template this organization does not have is skipped.
func (s *Service) ApplyPlatformUpdates(ctx context.Context, orgID uuid.UUID, accounts []string, ups []PlatformUpdate) error {
	ctx = viewer.SystemContext(ctx, orgID)
	db := database.ClientFor(ctx, s.Client)
	for _, up := range ups {
		t, err := findReported(ctx, db, accounts, up)
		if err != nil {
			return err
		}
		if t == nil {
			continue
		}
		u := db.Template.UpdateOne(t)
		changed := false
		if t.ProviderTemplateID == "" && up.TemplateID != "" {
			u.SetProviderTemplateID(up.TemplateID)
			changed = true
		}
		switch up.Field {
		case FieldStatusUpdate:
			st := clip(up.Status)
			if st == "REINSTATED" {
				st = "APPROVED" // a paused template in use again
			}
			if st != "" && st != t.Status {
				u.SetStatus(st)
				changed = true
			}
		case FieldQualityUpdate:
			if q := clip(up.Quality); q != "" && q != t.QualityRating {
				u.SetQualityRating(q)
				changed = true
			}
		case FieldCategoryUpdate:
			if c := template.Category(clip(up.Category)); template.CategoryValidator(c) == nil && c != t.Category {
				u.SetCategory(c)
				changed = true
			}
		}
		if !changed {
			continue
		}
		saved, err := u.Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		reason := up.Reason
		if strings.EqualFold(reason, "NONE") || len(reason) > 512 {
			reason = ""
		}
		if err := s.recordStatus(ctx, saved, t.Status, reason); err != nil {
			return err
		}
	}
	return nil
}

// findReported finds the template an update names: by platform id within
// the accounts, else by name and language among those not yet linked.
func findReported(ctx context.Context, db *ent.Client, accounts []string, up PlatformUpdate) (*ent.Template, error) {
	if len(accounts) == 0 {
		return nil, nil
	}
	if up.TemplateID != "" {
		t, err := db.Template.Query().Where(template.ProviderTemplateID(up.TemplateID), template.ChatAccountIn(accounts...)).
			First(ctx)
		if err == nil || !ent.IsNotFound(err) {
			return t, apperr.Wrap(err, "template")
		}
	}
	if up.Name == "" || up.Language == "" {
		return nil, nil
	}
	t, err := db.Template.Query().Where(template.Name(up.Name), template.Language(up.Language),
		template.ProviderTemplateID(""), template.ChatAccountIn(accounts...)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return t, apperr.Wrap(err, "template")
}
