package inbound

import (
	"context"

	"github.com/google/uuid"

	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/inboundevent"
	"switchboard/ent/rule"
	"switchboard/messaging"
	"switchboard/templates"
)

// processBatch hands a batch of deliveries to messaging, which stores
// them in tx (see messaging.Service.StoreReceived: a handful of statements
// whatever the batch's size, idempotent), and removes the deliveries in
// the same transaction.
func (s *Service) processBatch(ctx context.Context, tx *ent.Tx, evs []*ent.InboundEvent) error {
	parsed, err := s.parsedPayloads(ctx, tx, evs)
	if err != nil {
		return err
	}
	inboxes, calls, err := s.collect(ctx, parsed)
	if err != nil {
		return err
	}
	if err := s.Messaging.StoreReceived(ent.NewTxContext(ctx, tx), inboxes); err != nil {
		return err
	}
	if err := s.storeCalls(ent.NewTxContext(ctx, tx), inboxes, calls); err != nil {
		return err
	}
	if err := s.applyTemplateChanges(ent.NewTxContext(ctx, tx), parsed); err != nil {
		return err
	}
	ids := make([]string, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID.String()
	}
	// Processed deliveries leave the table in the same transaction: it is a
	// queue, and a DELETE costs the database far less than an UPDATE of
	// every row and index. A later redelivery of the same payload is
	// stored again and stores nothing new (message ids are unique).
	_, err = tx.InboundEvent.Delete().Where(database.AnyOf(inboundevent.FieldID, ids)).
		Exec(rule.Bypass(ctx, "removing processed webhook deliveries"))
	return err
}

// parsedPayloads returns the parse of each delivery: the one this node's
// ack path made (parsedCache), or else the stored payload, read in one
// query for the batch (the drainer's query leaves it out) and parsed. A
// payload that is not JSON has none (nil), and is skipped.
func (s *Service) parsedPayloads(ctx context.Context, tx *ent.Tx, evs []*ent.InboundEvent) ([]*payload, error) {
	out := make([]*payload, len(evs))
	var missing []string
	for i, ev := range evs {
		if out[i] = s.recv.parsed.take(ev.DedupeKey); out[i] == nil {
			missing = append(missing, ev.ID.String())
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	stored, err := tx.InboundEvent.Query().Where(database.AnyOf(inboundevent.FieldID, missing)).
		Select(inboundevent.FieldID, inboundevent.FieldPayload).
		All(rule.Bypass(ctx, "reading stored webhook deliveries"))
	if err != nil {
		return nil, err
	}
	byID := make(map[uuid.UUID][]byte, len(stored))
	for _, ev := range stored {
		byID[ev.ID] = ev.Payload
	}
	for i, ev := range evs {
		if out[i] != nil {
			continue
		}
		if out[i], err = parsePayload(byID[ev.ID]); err != nil {
			out[i] = nil
			s.Log.Warn("stored webhook delivery is not valid JSON; skipped", "event_id", ev.ID)
		}
	}
	return out, nil
}

// collect routes the deliveries' messages and statuses, and their call
// events, to the organizations of their accounts, in delivery order.
func (s *Service) collect(ctx context.Context, parsed []*payload) ([]messaging.Inbox, map[uuid.UUID]*callWork, error) {
	var changes []change
	phoneIDs := map[string]bool{}
	for _, p := range parsed {
		if p == nil {
			continue
		}
		for _, e := range p.Entry {
			for _, ch := range e.Changes {
				if ch.Field != "messages" && ch.Field != "calls" {
					if !templates.IsWebhookField(ch.Field) {
						s.Log.Info("webhook change field not handled; acknowledged", "field", ch.Field)
					}
					continue
				}
				changes = append(changes, ch)
				phoneIDs[ch.Value.Metadata.PhoneNumberID] = true
			}
		}
	}
	accounts, err := s.accountsByPhone(ctx, phoneIDs)
	if err != nil {
		return nil, nil, err
	}
	byOrg := map[uuid.UUID]int{}
	var inboxes []messaging.Inbox
	calls := map[uuid.UUID]*callWork{}
	for _, ch := range changes {
		v := ch.Value
		acc := accounts[v.Metadata.PhoneNumberID]
		if acc == nil {
			s.Log.Warn("webhook change for an unknown phone number id", "phone_number_id", v.Metadata.PhoneNumberID)
			continue
		}
		if ch.Field == "calls" || hasPermissionReply(v) {
			w := calls[acc.OrganizationID]
			if w == nil {
				w = &callWork{}
				calls[acc.OrganizationID] = w
			}
			if ch.Field == "calls" {
				s.addCallChange(w, acc, v)
				continue
			}
			s.addPermissionReplies(w, acc, v)
		}
		i, ok := byOrg[acc.OrganizationID]
		if !ok {
			i = len(inboxes)
			byOrg[acc.OrganizationID] = i
			inboxes = append(inboxes, messaging.Inbox{OrgID: acc.OrganizationID})
		}
		s.addChange(&inboxes[i], acc, v)
	}
	return inboxes, calls, nil
}

func (s *Service) addChange(in *messaging.Inbox, acc *ent.Account, v changeValue) {
	names := map[string]string{}
	for _, c := range v.Contacts {
		names[c.WaID] = c.Profile.Name
	}
	for _, m := range v.Messages {
		from, wamid := m.str("from"), m.str("id")
		if from == "" || wamid == "" {
			s.Log.Warn("webhook message without sender or id skipped", "type", m.str("type"))
			continue
		}
		ts, ok := parseTimestamp(m.str("timestamp"))
		if !ok {
			ts = s.now()
		}
		in.Messages = append(in.Messages, messaging.Received{
			Account: acc, From: from, ProfileName: names[from], ChatMessageID: wamid, Timestamp: ts, Content: extractContent(m),
		})
	}
	for _, st := range v.Statuses {
		ts, ok := parseTimestamp(st.Timestamp)
		if !ok {
			ts = s.now()
		}
		in.Statuses = append(in.Statuses, messaging.StatusUpdate{
			ChatMessageID: st.ID, Status: st.Status, Reason: st.errorText(), Timestamp: ts, CallbackData: st.CallbackData,
		})
	}
}

func (s *Service) accountsByPhone(ctx context.Context, ids map[string]bool) (map[string]*ent.Account, error) {
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	signers, err := s.signers(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*ent.Account, len(signers))
	for _, sg := range signers {
		if out[sg.acc.PhoneID] == nil {
			out[sg.acc.PhoneID] = sg.acc
		}
	}
	return out, nil
}

// applyTemplateChanges hands the deliveries' template changes to
// templates, per business account: to the organization of the oldest
// account holding that business account id (a business account belongs
// to one organization; should two hold it, the first one connected).
func (s *Service) applyTemplateChanges(ctx context.Context, parsed []*payload) error {
	type waba struct {
		id  string
		ups []templates.PlatformUpdate
	}
	var order []*waba
	byID := map[string]*waba{}
	for _, p := range parsed {
		if p == nil {
			continue
		}
		for _, e := range p.Entry {
			for _, ch := range e.Changes {
				if !templates.IsWebhookField(ch.Field) || e.ID == "" {
					continue
				}
				w := byID[e.ID]
				if w == nil {
					w = &waba{id: e.ID}
					byID[e.ID] = w
					order = append(order, w)
				}
				v := ch.Value
				w.ups = append(w.ups, templates.PlatformUpdate{
					Field: ch.Field, TemplateID: string(v.MessageTemplateID), Name: v.MessageTemplateName,
					Language: v.MessageTemplateLanguage, Status: v.Event, Reason: string(v.Reason),
					Quality: v.NewQualityScore, Category: v.NewCategory,
				})
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	if s.Templates == nil {
		s.Log.Info("template changes acknowledged without a templates service", "business_accounts", len(order))
		return nil
	}
	for _, w := range order {
		signers, err := s.businessSigners(ctx, []string{w.id})
		if err != nil {
			return err
		}
		if len(signers) == 0 {
			s.Log.Warn("template changes for an unknown business account id", "business_id", w.id)
			continue
		}
		org := signers[0].acc.OrganizationID
		var names []string
		for _, sg := range signers {
			if sg.acc.OrganizationID == org {
				names = append(names, sg.acc.Name)
			}
		}
		if err := s.Templates.ApplyPlatformUpdates(ctx, org, names, w.ups); err != nil {
			return err
		}
	}
	return nil
}
