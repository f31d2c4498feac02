package campaigns

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/campaign"
	"switchboard/ent/campaignrecipient"
	"switchboard/ent/viewer"
	"switchboard/messaging"
)

// claimSQL claims up to $3 pending recipients of a campaign that are due
// ($4 is now) in one statement, only while the campaign is sending: a
// pause or cancel committed before it stops it on every node. Rows
// another sender holds are skipped, never waited for; each claimed row's
// attempt number goes up by one. organization_id repeats the viewer's
// organization (the statement bypasses ent's privacy rules). The rows
// are chosen in a materialized CTE: as an IN (subquery) the planner may
// run the subquery again per row and claim more than $3.
const claimSQL = `WITH due AS MATERIALIZED (
	SELECT q.id FROM campaign_recipients AS q
	WHERE q.organization_id = $1 AND q.campaign_id = $2 AND q.status = 'pending'
		AND (q.retry_at IS NULL OR q.retry_at <= $4)
		AND EXISTS (SELECT 1 FROM campaigns AS c WHERE c.id = $2 AND c.organization_id = $1 AND c.status = 'sending')
	LIMIT $3
	FOR UPDATE OF q SKIP LOCKED)
UPDATE campaign_recipients AS r
SET status = 'sending', sending_at = $4, attempts = r.attempts + 1, retry_at = NULL, updated_at = $4
FROM due WHERE r.id = due.id AND r.status = 'pending'
RETURNING r.id, r.phone_number, r.recipient_name, r.template_params, r.header_params, r.attempts`

// claim takes up to n recipients for sending (pending → sending, attempt
// + 1), in one statement on PostgreSQL, one by one elsewhere. It returns
// nothing when the campaign is no longer sending.
func (snd *sender) claim(ctx context.Context, n int) ([]*ent.CampaignRecipient, error) {
	s := snd.s
	if !s.Postgres {
		return snd.claimEach(ctx, n)
	}
	rows, err := s.Client.QueryContext(ctx, claimSQL, snd.c.OrganizationID, snd.c.ID, n, s.now())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ent.CampaignRecipient
	for rows.Next() {
		r := &ent.CampaignRecipient{
			CampaignID: snd.c.ID, OrganizationID: snd.c.OrganizationID, Status: campaignrecipient.StatusSending,
		}
		var params, header []byte
		if err := rows.Scan(&r.ID, &r.PhoneNumber, &r.RecipientName, &params, &header, &r.Attempts); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(params, &r.TemplateParams); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(header, &r.HeaderParams); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// claimEach is claim with ent's statements (SQLite): the due pending
// recipients are read, then claimed one at a time, each only while the
// campaign is sending.
func (snd *sender) claimEach(ctx context.Context, n int) ([]*ent.CampaignRecipient, error) {
	s := snd.s
	batch, err := s.Client.CampaignRecipient.Query().
		Where(campaignrecipient.CampaignID(snd.c.ID), campaignrecipient.StatusEQ(campaignrecipient.StatusPending),
			campaignrecipient.Or(campaignrecipient.RetryAtIsNil(), campaignrecipient.RetryAtLTE(s.now()))).
		Order(ent.Asc(campaignrecipient.FieldID)).Limit(n).All(ctx)
	if err != nil {
		return nil, err
	}
	var out []*ent.CampaignRecipient
	for _, r := range batch {
		attempt := r.Attempts + 1
		k, err := s.Client.CampaignRecipient.Update().
			Where(campaignrecipient.ID(r.ID), campaignrecipient.StatusEQ(campaignrecipient.StatusPending),
				campaignrecipient.HasCampaignWith(campaign.StatusEQ(campaign.StatusSending))).
			SetStatus(campaignrecipient.StatusSending).SetSendingAt(s.now()).SetAttempts(attempt).ClearRetryAt().Save(ctx)
		if err != nil {
			return out, err
		}
		if k == 0 {
			continue
		}
		r.Attempts, r.Status = attempt, campaignrecipient.StatusSending
		out = append(out, r)
	}
	return out, nil
}

// call prepares a claimed recipient's message, calls the platform and
// hands an accepted send to rec; a refused one is handled at once.
func (snd *sender) call(octx context.Context, r *ent.CampaignRecipient, rec *recorder) {
	s := snd.s
	p, err := snd.prepare(octx, r)
	if err != nil {
		snd.finish(octx, r, campaignrecipient.StatusFailed, errText(err))
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(octx), callTimeout)
	res, err := s.Provider.SendMessage(cctx, snd.acc, p.Message)
	cancel()
	if err != nil {
		snd.failed(octx, r, err)
		return
	}
	snd.failures.Store(0)
	rec.add(acceptedSend{r: r, p: p, wamid: res.MessageID})
}

// record stores a batch of accepted sends: in one transaction on
// PostgreSQL (falling back to one per send if it fails), one per send
// elsewhere. A send that cannot be stored leaves its recipient sending:
// the status webhook reconciles it (its callback data names it), or the
// sending bound fails it.
func (snd *sender) record(ctx context.Context, batch []acceptedSend) {
	s := snd.s
	if s.Postgres {
		err := s.acceptedBatch(ctx, snd.c.ID, batch)
		if err == nil {
			s.markProgress(snd.c.OrganizationID, snd.c.ID)
			return
		}
		s.log().Warn("recording a batch of campaign sends; recording them one by one", "campaign_id", snd.c.ID, "err", err)
	}
	for _, a := range batch {
		if err := s.accepted(ctx, a.r.ID, a.r.Attempts, a.p, a.wamid); err != nil {
			s.log().Error("recording a campaign send the platform accepted", "recipient_id", a.r.ID, "wamid", a.wamid, "err", err)
		}
	}
	s.markProgress(snd.c.OrganizationID, snd.c.ID)
}

// lockSendingSQL locks the recipients of a batch that still wait for the
// record of their send (sending, no platform id), in id order as the
// status hook locks them.
const lockSendingSQL = `SELECT id, attempts FROM campaign_recipients
WHERE organization_id = $1 AND id = ANY($2::uuid[]) AND status = 'sending' AND chat_message_id IS NULL
ORDER BY id FOR UPDATE`

// markSentSQL records the sends of locked recipients.
const markSentSQL = `UPDATE campaign_recipients AS r
SET status = 'sent', chat_message_id = u.wamid, message_id = u.message_id, sent_at = $2, retry_at = NULL, updated_at = $2
FROM unnest($3::uuid[], $4::text[], $5::uuid[]) AS u(id, wamid, message_id)
WHERE r.organization_id = $1 AND r.id = u.id`

// acceptedBatch is accepted for a batch of one campaign's sends, in one
// transaction with a fixed number of statements: the recipients still
// waiting for their record (the attempt that sent) are locked, their
// messages stored through messaging, the recipients moved to sent with
// their platform ids, and the sent counter moved once. Recipients the
// status webhook already reconciled are left alone.
func (s *Service) acceptedBatch(ctx context.Context, campaignID uuid.UUID, batch []acceptedSend) error {
	org := viewer.FromContext(ctx).OrgID
	sort.Slice(batch, func(i, j int) bool { return batch[i].r.ID.String() < batch[j].r.ID.String() })
	return database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		ids := database.NewArray(37 * len(batch))
		for _, a := range batch {
			ids.UUID(a.r.ID)
		}
		rows, err := db.QueryContext(ctx, lockSendingSQL, org, ids)
		if err != nil {
			return err
		}
		waiting := map[uuid.UUID]int{}
		for rows.Next() {
			var id uuid.UUID
			var attempts int
			if err := rows.Scan(&id, &attempts); err != nil {
				rows.Close()
				return err
			}
			waiting[id] = attempts
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var keep []acceptedSend
		var sent []messaging.SentTemplate
		for _, a := range batch {
			if at, ok := waiting[a.r.ID]; ok && at == a.r.Attempts {
				keep = append(keep, a)
				sent = append(sent, messaging.SentTemplate{Prepared: a.p, WAMID: a.wamid})
			}
		}
		if len(keep) == 0 {
			return nil
		}
		msgIDs, err := s.Messaging.StoreSentTemplates(ctx, db, sent)
		if err != nil {
			return err
		}
		rid, wamid, mid := database.NewArray(37*len(keep)), database.NewArray(48*len(keep)), database.NewArray(37*len(keep))
		for i, a := range keep {
			rid.UUID(a.r.ID)
			wamid.String(a.wamid)
			mid.UUID(msgIDs[i])
		}
		if _, err := db.ExecContext(ctx, markSentSQL, org, s.now(), rid, wamid, mid); err != nil {
			return err
		}
		return addCounters(ctx, db, campaignID, delta{sent: len(keep)})
	})
}
