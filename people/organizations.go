package people

import (
	"context"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/organization"
	"switchboard/ent/viewer"
)

// CreateOrganizationInput is a new organization.
type CreateOrganizationInput struct {
	Name string
}

// OrganizationsQuery returns the organizations the viewer may see: every
// organization for a super admin, the viewer's own otherwise (the data
// layer decides).
func (s *Service) OrganizationsQuery(ctx context.Context) *ent.OrganizationQuery {
	return s.db(ctx).Organization.Query()
}

// Organizations returns OrganizationsQuery by name.
func (s *Service) Organizations(ctx context.Context) ([]*ent.Organization, error) {
	orgs, err := s.OrganizationsQuery(ctx).
		Order(ent.Asc(organization.FieldName), ent.Asc(organization.FieldID)).All(ctx)
	return orgs, apperr.Wrap(err, "organization")
}

// CurrentOrganization returns the organization the viewer acts in.
// Errors: unauthenticated (no viewer), not_found.
func (s *Service) CurrentOrganization(ctx context.Context) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !v.HasOrg() {
		return nil, unauthenticated()
	}
	o, err := s.db(ctx).Organization.Get(ctx, v.OrgID)
	return o, apperr.Wrap(err, "organization")
}

// CreateOrganization creates an organization with its system roles and
// defaults and makes the viewer its Admin (access.CreateOrganization).
// The viewer's default organization does not change. Errors: forbidden
// (an API key or a system actor: only a person can own an organization,
// access.ActsInPerson), invalid (name missing or too long).
func (s *Service) CreateOrganization(ctx context.Context, in CreateOrganizationInput) (*ent.Organization, error) {
	v := viewer.FromContext(ctx)
	if !access.ActsInPerson(v) {
		return nil, apperr.Forbiddenf("only a signed-in user can create an organization; API keys cannot")
	}
	return access.CreateOrganization(ctx, s.db(ctx), in.Name, v.UserID, false)
}
