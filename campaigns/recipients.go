package campaigns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/campaign"
	"switchboard/ent/campaignrecipient"
	"switchboard/ent/schema"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
	"switchboard/messaging"
)

// Bounds of a recipient import.
const (
	// MaxImport is the most recipients one import call takes; import
	// larger lists in several calls.
	MaxImport = 50_000
	// maxImportErrors bounds the reasons an import answer lists.
	maxImportErrors = 20
	// importChunk is the rows of one INSERT (PostgreSQL arrays carry
	// them in a fixed number of parameters; SQLite's bulk builder is cut
	// under the bind parameter limit by database.InChunks).
	importChunk         = 10_000
	maxRecipientName    = 255
	maxParamsPerRequest = 20
	// DefaultRecipientsPage is the recipients list's default page size.
	DefaultRecipientsPage = 50
)

// RecipientInput is one recipient of an import. Parameter values may be
// strings, numbers or booleans (they are sent as text).
type RecipientInput struct {
	PhoneNumber    string         `json:"phone_number"`
	RecipientName  string         `json:"recipient_name"`
	TemplateParams map[string]any `json:"template_params"`
	HeaderParams   map[string]any `json:"header_params"`
	// ButtonParams fill the template's dynamic URL buttons by button
	// index ("0", "1", ...), as button_params of a single template send.
	ButtonParams map[string]any `json:"button_params"`
}

// buttonKey prefixes the button parameters kept with a recipient's
// template_params ("button:0"): no template variable has a colon.
const buttonKey = "button:"

// splitParams separates a stored recipient's body and button parameters.
func splitParams(stored map[string]any) (body, buttons map[string]string) {
	body = make(map[string]string, len(stored))
	for k, v := range stored {
		if i, ok := strings.CutPrefix(k, buttonKey); ok {
			if buttons == nil {
				buttons = map[string]string{}
			}
			buttons[i] = fmt.Sprint(v)
			continue
		}
		body[k] = fmt.Sprint(v)
	}
	return body, buttons
}

// ImportResult counts an import: rows stored, phone numbers already in
// the campaign or repeated in the call, and rows refused (Errors says why,
// for the first few).
type ImportResult struct {
	Imported   int           `json:"imported"`
	Duplicates int           `json:"duplicates"`
	Invalid    int           `json:"invalid"`
	Errors     []ImportError `json:"errors"`
}

// ImportError is why one row of an import was refused.
type ImportError struct {
	Index       int    `json:"index"`
	PhoneNumber string `json:"phone_number"`
	Message     string `json:"message"`
}

// row is a checked recipient ready to insert.
type row struct {
	phone, name    string
	params, header map[string]string
}

// Import adds recipients to a draft campaign: phone numbers are
// normalised to E.164 digits, repeated ones (in the call or already in the
// campaign) are counted as duplicates, rows with a bad number, name or
// parameters (checked against the template's variables) as invalid.
// Errors: invalid (more than MaxImport rows, the campaign is not a draft
// or has no template), not_found.
func (s *Service) Import(ctx context.Context, id uuid.UUID, in []RecipientInput) (*ImportResult, error) {
	if len(in) == 0 {
		return nil, apperr.Invalidf("recipients is required and must not be empty")
	}
	if len(in) > MaxImport {
		return nil, apperr.Invalidf("at most %d recipients can be imported in one call, not %d: split the list", MaxImport, len(in))
	}
	res := &ImportResult{Errors: []ImportError{}}
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		if c.Status != campaign.StatusDraft {
			return apperr.Invalidf("recipients can only be imported into a draft campaign (this one is %s)", c.Status)
		}
		if c.TemplateID == nil {
			return apperr.Invalidf("the campaign has no template")
		}
		t, err := db.Template.Get(ctx, *c.TemplateID)
		if err != nil {
			return apperr.Wrap(err, "template")
		}
		rows := checkRows(in, messaging.NewParamsChecker(t), res)
		before, err := db.CampaignRecipient.Query().Where(campaignrecipient.CampaignID(id)).Count(ctx)
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		if s.Postgres {
			err = pgInsertRecipients(ctx, db, c, rows, s.now())
		} else {
			err = insertRecipients(ctx, db, c, rows)
		}
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		after, err := db.CampaignRecipient.Query().Where(campaignrecipient.CampaignID(id)).Count(ctx)
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		res.Imported = after - before
		res.Duplicates += len(rows) - res.Imported
		return apperr.Wrap(db.Campaign.UpdateOne(c).SetTotalRecipients(after).Exec(ctx), "campaign")
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkRows validates and dedupes the call's rows, counting what it
// drops in res.
func checkRows(in []RecipientInput, params *messaging.ParamsChecker, res *ImportResult) []row {
	seen := make(map[string]bool, len(in))
	rows := make([]row, 0, len(in))
	refuse := func(i int, phone string, err error) {
		res.Invalid++
		if len(res.Errors) < maxImportErrors {
			res.Errors = append(res.Errors, ImportError{Index: i, PhoneNumber: phone, Message: errText(err)})
		}
	}
	for i, r := range in {
		phone, err := messaging.NormalizePhone(r.PhoneNumber)
		if err != nil {
			refuse(i, r.PhoneNumber, err)
			continue
		}
		name, err := valid.Text("recipient_name", r.RecipientName, maxRecipientName)
		if err != nil {
			refuse(i, r.PhoneNumber, err)
			continue
		}
		body, err := stringParams("template_params", r.TemplateParams)
		if err == nil {
			var header map[string]string
			if header, err = stringParams("header_params", r.HeaderParams); err == nil {
				var buttons map[string]string
				if err = params.Check(body, header); err == nil {
					buttons, err = stringParams("button_params", r.ButtonParams)
				}
				if err == nil {
					err = params.CheckButtons(buttons)
				}
				if err == nil {
					if seen[phone] {
						res.Duplicates++
						continue
					}
					seen[phone] = true
					for i, v := range buttons {
						body[buttonKey+i] = v
					}
					rows = append(rows, row{phone: phone, name: name, params: body, header: header})
					continue
				}
			}
		}
		refuse(i, r.PhoneNumber, err)
	}
	return rows
}

// stringParams turns parameter values into text: strings as they are,
// numbers and booleans in their JSON form.
func stringParams(field string, in map[string]any) (map[string]string, error) {
	if len(in) > maxParamsPerRequest {
		return nil, apperr.Invalidf("%s has more than %d values", field, maxParamsPerRequest)
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch x := v.(type) {
		case string:
			out[k] = strings.TrimSpace(x)
		case json.Number:
			out[k] = x.String()
		case float64, bool, int:
			out[k] = fmt.Sprint(x)
		default:
			return nil, apperr.Invalidf("%s {{%s}} must be a string or a number", field, k)
		}
	}
	return out, nil
}

// insertRecipientsSQL is the import's INSERT on PostgreSQL: one fixed
// text whose parameters are arrays, so any number of rows takes 8
// parameters, far under the 65,535 limit. A phone number already in the
// campaign is skipped. The organization is stamped as ent's hook does
// (the viewer's; the campaign was read through the viewer).
const insertRecipientsSQL = `INSERT INTO campaign_recipients (id, created_at, updated_at, organization_id, campaign_id,
	phone_number, recipient_name, template_params, header_params, status, error_message, attempts)
SELECT r.id, $1, $1, $2, $3, r.phone, r.name, r.params::jsonb, r.header::jsonb, 'pending', '', 0
FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[]) AS r(id, phone, name, params, header)
ON CONFLICT (campaign_id, phone_number) DO NOTHING`

// pgInsertRecipients imports rows with insertRecipientsSQL, a chunk at a
// time, in the import's transaction; each row's two key checks keep their
// plans (database.WithCheckPlansKept).
func pgInsertRecipients(ctx context.Context, db *ent.Client, c *ent.Campaign, rows []row, now time.Time) error {
	v := viewer.FromContext(ctx)
	if v == nil || v.OrgID != c.OrganizationID {
		return apperr.New(apperr.Internal, "import without the campaign's organization")
	}
	for start := 0; start < len(rows); start += importChunk {
		part := rows[start:min(start+importChunk, len(rows))]
		n := len(part)
		ids, phones, names, params, headers := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		for i, r := range part {
			ids[i], phones[i], names[i] = schema.NewID().String(), r.phone, r.name
			params[i], headers[i] = jsonText(r.params), jsonText(r.header)
		}
		err := database.WithCheckPlansKept(ctx, db, func() error {
			_, err := db.ExecContext(ctx, insertRecipientsSQL, now, c.OrganizationID, c.ID,
				pq.Array(ids), pq.Array(phones), pq.Array(names), pq.Array(params), pq.Array(headers))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func jsonText(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// insertRecipients is the import with ent's bulk builder (SQLite).
func insertRecipients(ctx context.Context, db *ent.Client, c *ent.Campaign, rows []row) error {
	creates := make([]*ent.CampaignRecipientCreate, len(rows))
	for i, r := range rows {
		creates[i] = db.CampaignRecipient.Create().SetCampaignID(c.ID).SetPhoneNumber(r.phone).
			SetRecipientName(r.name).SetTemplateParams(anyMap(r.params)).SetHeaderParams(anyMap(r.header))
	}
	return database.InChunks(creates, len(campaignrecipient.Columns), func(part []*ent.CampaignRecipientCreate) error {
		return db.CampaignRecipient.CreateBulk(part...).
			OnConflictColumns(campaignrecipient.FieldCampaignID, campaignrecipient.FieldPhoneNumber).DoNothing().Exec(ctx)
	})
}

// Recipients returns a page of the campaign's recipients in import order
// and their total; status filters them. Errors: invalid (status),
// not_found (campaign).
func (s *Service) Recipients(ctx context.Context, id uuid.UUID, status string, offset, limit int) ([]*ent.CampaignRecipient, int, error) {
	db := s.db(ctx)
	if _, err := db.Campaign.Get(ctx, id); err != nil {
		return nil, 0, apperr.Wrap(err, "campaign")
	}
	q := db.CampaignRecipient.Query().Where(campaignrecipient.CampaignID(id))
	if st := strings.TrimSpace(status); st != "" {
		if err := campaignrecipient.StatusValidator(campaignrecipient.Status(st)); err != nil {
			return nil, 0, apperr.Invalidf("status must be one of pending, sending, sent, delivered, read, failed")
		}
		q = q.Where(campaignrecipient.StatusEQ(campaignrecipient.Status(st)))
	}
	// Counted up to the bound, or the requested page when deeper (docs/api.md).
	total, _, err := database.CountUpTo(ctx, q, max(database.CountBound, offset+limit))
	if err != nil {
		return nil, 0, apperr.Wrap(err, "recipient")
	}
	page, err := database.PageAt(ctx, q.Order(ent.Asc(campaignrecipient.FieldID)), offset, min(limit, MaxPageSize), campaignrecipient.IDIn)
	if err != nil {
		return nil, 0, apperr.Wrap(err, "recipient")
	}
	rs, err := page.All(ctx)
	return rs, total, apperr.Wrap(err, "recipient")
}

// DeleteRecipient removes a recipient of a draft campaign. Errors:
// invalid (not a draft), not_found (campaign, or not its recipient).
func (s *Service) DeleteRecipient(ctx context.Context, id, recipientID uuid.UUID) error {
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		c, err := s.lockCampaign(ctx, db, id)
		if err != nil {
			return err
		}
		n, err := db.CampaignRecipient.Delete().
			Where(campaignrecipient.ID(recipientID), campaignrecipient.CampaignID(id)).Exec(ctx)
		if err != nil {
			return apperr.Wrap(err, "recipient")
		}
		if n == 0 {
			return apperr.NotFoundf("recipient not found")
		}
		if c.Status != campaign.StatusDraft {
			return apperr.Invalidf("recipients can only be removed from a draft campaign (this one is %s)", c.Status)
		}
		return apperr.Wrap(db.Campaign.UpdateOne(c).AddTotalRecipients(-n).Exec(ctx), "campaign")
	})
}

// errText is the message of err safe to show.
func errText(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return err.Error()
}
