package templates

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"switchboard/accounts"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/template"
	"switchboard/events"
	"switchboard/provider"
)

// StatusEvent is the payload of template:status (on /ws, GraphQL
// subscriptions and outbound webhooks).
type StatusEvent struct {
	ID                 uuid.UUID `json:"id"`
	Name               string    `json:"name"`
	Language           string    `json:"language"`
	ChatAccount        string    `json:"chat_account"`
	ProviderTemplateID string    `json:"provider_template_id"`
	Status             string    `json:"status"`
	PreviousStatus     string    `json:"previous_status"`
	Category           string    `json:"category"`
	QualityRating      string    `json:"quality_rating"`
	// Reason is the platform's reason (a rejection's), when it gave one.
	Reason string `json:"reason,omitempty"`
}

// recordStatus records t's template:status event in ctx's transaction.
func (s *Service) recordStatus(ctx context.Context, t *ent.Template, previous, reason string) error {
	if s.Events == nil {
		return nil
	}
	return s.Events.Record(ctx, events.Event{Type: events.TemplateStatusChanged, OrgID: t.OrganizationID, Payload: StatusEvent{
		ID: t.ID, Name: t.Name, Language: t.Language, ChatAccount: t.ChatAccount, ProviderTemplateID: t.ProviderTemplateID,
		Status: t.Status, PreviousStatus: previous, Category: string(t.Category), QualityRating: t.QualityRating, Reason: reason,
	}})
}

// providerAccount loads the named account's credentials for a platform
// call. Errors: invalid (unknown account, no access token, no business
// id), internal (the token cannot be decrypted).
func (s *Service) providerAccount(ctx context.Context, name string) (*ent.Account, provider.Account, error) {
	a, err := s.db(ctx).Account.Query().Where(account.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, provider.Account{}, apperr.Invalidf("account %q not found", name)
	}
	if err != nil {
		return nil, provider.Account{}, apperr.Wrap(err, "account")
	}
	if len(a.AccessTokenEncrypted) == 0 {
		return nil, provider.Account{}, apperr.Invalidf("account %q has no access token", name)
	}
	if a.BusinessID == "" {
		return nil, provider.Account{}, apperr.Invalidf("account %q has no business_id (WhatsApp Business Account id)", name)
	}
	if s.Secrets == nil || s.Provider == nil {
		return nil, provider.Account{}, apperr.New(apperr.Internal, "the platform client is not configured")
	}
	creds, err := accounts.Credentials(s.Secrets, a)
	return a, creds, err
}

// isNotFoundAtPlatform tells a platform answer that the template is gone.
func isNotFoundAtPlatform(err error) bool {
	var pe *provider.Error
	return errors.As(err, &pe) && (pe.Status == 404 || pe.Code == 100 && pe.Subcode == 2593002)
}

func (s *Service) editAtPlatform(ctx context.Context, cur *ent.Template, d *draft) error {
	next := *cur
	next.Category, next.HeaderType, next.HeaderContent, next.BodyContent = d.category, d.headerType, d.header, d.body
	next.FooterContent, next.Buttons, next.SampleValues = d.footer, d.buttons, d.samples
	next.AddSecurityRecommendation, next.CodeExpirationMinutes = d.securityRecommendation, d.codeExpiration
	def, err := Definition(&next)
	if err != nil {
		return err
	}
	_, acc, err := s.providerAccount(ctx, cur.ChatAccount)
	if err != nil {
		return err
	}
	edit := provider.TemplateEdit{Components: def.Components}
	if next.Category != cur.Category {
		edit.Category = string(next.Category)
	}
	return provider.AppError(s.Provider.EditTemplate(ctx, acc, cur.ProviderTemplateID, edit))
}

func (s *Service) deleteAtPlatform(ctx context.Context, t *ent.Template) error {
	_, acc, err := s.providerAccount(ctx, t.ChatAccount)
	if err != nil {
		return err
	}
	err = s.Provider.DeleteTemplate(ctx, acc, t.Name, t.ProviderTemplateID)
	if err != nil && !isNotFoundAtPlatform(err) {
		return provider.AppError(err)
	}
	return nil
}

// Published is the answer of Publish.
type Published struct {
	Message            string
	ProviderTemplateID string
	Status             string
	Template           *View
}

// Publish submits a template for the platform's review: a draft through
// the create call (it gets its provider_template_id), a submitted one as
// an edit with its current fields. The template is then PENDING (or the
// status the platform answered) and template:status is recorded.
// Errors: not_found, invalid (the template breaks a rule; a media header
// without its sample handle; the platform's refusal with its message),
// unavailable (the platform failed).
func (s *Service) Publish(ctx context.Context, id uuid.UUID) (*Published, error) {
	t, err := s.db(ctx).Template.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err, "template")
	}
	def, err := Definition(t)
	if err != nil {
		return nil, err
	}
	_, acc, err := s.providerAccount(ctx, t.ChatAccount)
	if err != nil {
		return nil, err
	}
	platformID, status, category := t.ProviderTemplateID, StatusPending, t.Category
	message := "Template submitted for review"
	if platformID == "" {
		res, err := s.Provider.CreateTemplate(ctx, acc, def)
		if err != nil {
			return nil, provider.AppError(err)
		}
		platformID = res.ID
		if res.Status != "" {
			status = strings.ToUpper(res.Status)
		}
		if c := template.Category(strings.ToUpper(res.Category)); template.CategoryValidator(c) == nil {
			category = c
		}
	} else {
		if err := s.Provider.EditTemplate(ctx, acc, platformID, provider.TemplateEdit{Components: def.Components}); err != nil {
			return nil, provider.AppError(err)
		}
		message = "Template changes submitted for review"
	}
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		prev, err := db.Template.Get(ctx, id)
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		saved, err := db.Template.UpdateOneID(id).SetProviderTemplateID(platformID).SetStatus(status).
			SetCategory(category).Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		return s.recordStatus(ctx, saved, prev.Status, "")
	})
	if err != nil {
		return nil, err
	}
	v, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Published{Message: message, ProviderTemplateID: platformID, Status: v.Status, Template: v}, nil
}
