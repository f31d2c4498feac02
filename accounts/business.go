package accounts

import (
	"context"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/ent/account"
	"switchboard/ent/businessaccounthold"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// errBusinessIDHeld answers a business_id that another organization
// holds. It does not say which.
const errBusinessIDHeld = "this business_id (WhatsApp Business Account) is connected in another organization; a business account belongs to one organization"

// claimBusinessID makes the viewer's organization the holder of a
// business account id, in the caller's transaction: the first
// organization to connect it holds it (however many of its accounts share
// it). Errors: conflict (another organization holds it).
func (s *Service) claimBusinessID(ctx context.Context, businessID string) error {
	org := viewer.FromContext(ctx).OrgID
	bctx := rule.Bypass(ctx, "a business account id belongs to one organization across all of them")
	db := s.db(ctx)
	err := db.BusinessAccountHold.Create().SetBusinessID(businessID).SetOrganizationID(org).
		OnConflictColumns(businessaccounthold.FieldBusinessID).Ignore().Exec(bctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	h, err := db.BusinessAccountHold.Query().Where(businessaccounthold.BusinessID(businessID)).Only(bctx)
	if err != nil {
		return apperr.Wrap(err, "account")
	}
	if h.OrganizationID != org {
		return apperr.New(apperr.Conflict, errBusinessIDHeld)
	}
	return nil
}

// releaseBusinessID gives up the organization's hold of a business
// account id once none of its accounts but except uses it.
func (s *Service) releaseBusinessID(ctx context.Context, businessID string, except uuid.UUID) error {
	db := s.db(ctx)
	used, err := db.Account.Query().Where(account.BusinessID(businessID), account.IDNEQ(except)).Exist(ctx)
	if err != nil || used {
		return apperr.Wrap(err, "account")
	}
	_, err = db.BusinessAccountHold.Delete().Where(businessaccounthold.BusinessID(businessID),
		businessaccounthold.OrganizationID(viewer.FromContext(ctx).OrgID)).
		Exec(rule.Bypass(ctx, "releasing the organization's business account id"))
	return apperr.Wrap(err, "account")
}
