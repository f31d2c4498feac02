package templates

import (
	"context"
	"strings"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/internal/valid"
	"switchboard/provider"
)

// Bounds of a sync: templates per page asked of the platform, and pages
// read (a business account holds at most a few thousand templates).
const (
	syncPageSize = 100
	maxSyncPages = 200
)

// Sync reads every template of the account's business account from the
// platform (following the after cursor) and upserts them: a row is found
// by its platform id, else by name and language, and takes the platform's
// status, category, quality and components. It returns how many
// templates it stored. Rows the platform no longer lists are kept.
// Errors: invalid (unknown account, no credentials, the platform's
// refusal), unavailable.
func (s *Service) Sync(ctx context.Context, accountName string) (int, error) {
	accountName = strings.TrimSpace(accountName)
	if _, err := valid.Text("chat_account", accountName, 200); err != nil {
		return 0, err
	}
	_, acc, err := s.providerAccount(ctx, accountName)
	if err != nil {
		return 0, err
	}
	all, err := provider.ReadAll(maxSyncPages, func(after string) (*provider.Page[provider.PlatformTemplate], error) {
		return s.Provider.ListTemplates(ctx, acc, after, syncPageSize)
	})
	if err != nil {
		return 0, provider.AppError(err)
	}
	count := 0
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		for _, pt := range all {
			ok, err := s.upsert(ctx, db, accountName, pt)
			if err != nil {
				return err
			}
			if ok {
				count++
			}
		}
		return nil
	})
	return count, err
}

// upsert stores one listed template; templates without id, name or
// language, or of an unknown category, are skipped.
func (s *Service) upsert(ctx context.Context, db *ent.Client, accountName string, pt provider.PlatformTemplate) (bool, error) {
	f := flatten(pt)
	if pt.ID == "" || pt.Name == "" || pt.Language == "" || template.CategoryValidator(f.category) != nil {
		return false, nil
	}
	cur, err := db.Template.Query().Where(template.ChatAccount(accountName), template.ProviderTemplateID(pt.ID)).First(ctx)
	if ent.IsNotFound(err) {
		cur, err = db.Template.Query().Where(template.ChatAccount(accountName), template.Name(pt.Name),
			template.Language(pt.Language)).First(ctx)
	}
	if err != nil && !ent.IsNotFound(err) {
		return false, apperr.Wrap(err, "template")
	}
	if cur == nil {
		c := db.Template.Create().SetChatAccount(accountName).SetName(pt.Name).SetDisplayName(pt.Name).
			SetLanguage(pt.Language).SetProviderTemplateID(pt.ID)
		f.apply(c.Mutation())
		if _, err := c.Save(ctx); err != nil {
			return false, apperr.Wrap(err, "template")
		}
		return true, nil
	}
	u := db.Template.UpdateOne(cur).SetName(pt.Name).SetLanguage(pt.Language).SetProviderTemplateID(pt.ID)
	f.apply(u.Mutation())
	saved, err := u.Save(ctx)
	if err != nil {
		return false, apperr.Wrap(err, "template")
	}
	if saved.Status != cur.Status {
		if err := s.recordStatus(ctx, saved, cur.Status, ""); err != nil {
			return false, err
		}
	}
	return true, nil
}

// flat is a listed template in the flat fields of the API.
type flat struct {
	status, quality        string
	category               template.Category
	headerType             template.HeaderType
	header, body, footer   string
	buttons                []map[string]any
	samples                []string
	securityRecommendation bool
	codeExpiration         *int
}

func flatten(pt provider.PlatformTemplate) flat {
	f := flat{
		status: strings.ToUpper(pt.Status), category: template.Category(strings.ToUpper(pt.Category)),
		headerType: template.HeaderTypeNONE, quality: "UNKNOWN", buttons: []map[string]any{}, samples: []string{},
	}
	if pt.QualityScore != nil && pt.QualityScore.Score != "" {
		f.quality = strings.ToUpper(pt.QualityScore.Score)
	}
	var headerSample []string
	for _, c := range pt.Components {
		switch strings.ToUpper(c.Type) {
		case "HEADER":
			ht := template.HeaderType(strings.ToUpper(c.Format))
			if template.HeaderTypeValidator(ht) != nil {
				continue // LOCATION and other formats are not supported here
			}
			f.headerType = ht
			if ht == template.HeaderTypeTEXT {
				f.header = c.Text
				if c.Example != nil {
					headerSample = c.Example.HeaderText
					for _, p := range c.Example.HeaderTextNamedParams {
						headerSample = append(headerSample, p.Example)
					}
				}
			} else if c.Example != nil && len(c.Example.HeaderHandle) > 0 {
				f.header = c.Example.HeaderHandle[0]
			}
		case "BODY":
			f.body = c.Text
			f.securityRecommendation = c.AddSecurityRecommendation
			if c.Example != nil {
				if len(c.Example.BodyText) > 0 {
					f.samples = append(f.samples, c.Example.BodyText[0]...)
				}
				for _, p := range c.Example.BodyTextNamedParams {
					f.samples = append(f.samples, p.Example)
				}
			}
		case "FOOTER":
			f.footer = c.Text
			if c.CodeExpirationMinutes >= MinCodeExpiration && c.CodeExpirationMinutes <= MaxCodeExpiration {
				m := c.CodeExpirationMinutes
				f.codeExpiration = &m
			}
		case "BUTTONS":
			for _, b := range c.Buttons {
				m := map[string]any{"type": strings.ToUpper(b.Type), "text": b.Text}
				if b.URL != "" {
					m["url"] = b.URL
				}
				if b.PhoneNumber != "" {
					m["phone_number"] = b.PhoneNumber
				}
				if b.OTPType != "" {
					m["otp_type"] = b.OTPType
				}
				f.buttons = append(f.buttons, m)
			}
		}
	}
	f.samples = append(f.samples, headerSample...)
	return f
}

func (f flat) apply(m *ent.TemplateMutation) {
	if f.status != "" {
		m.SetStatus(f.status)
	}
	m.SetCategory(f.category)
	m.SetQualityRating(f.quality)
	m.SetHeaderType(f.headerType)
	m.SetHeaderContent(f.header)
	m.SetBodyContent(f.body)
	m.SetFooterContent(f.footer)
	m.SetButtons(f.buttons)
	m.SetSampleValues(f.samples)
	m.SetAddSecurityRecommendation(f.securityRecommendation)
	if f.codeExpiration != nil {
		m.SetCodeExpirationMinutes(*f.codeExpiration)
	} else {
		m.ClearCodeExpirationMinutes()
	}
}
