package access

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/auth"
	"switchboard/ent"
	"switchboard/ent/permission"
	"switchboard/ent/role"
	"switchboard/ent/rule"
	"switchboard/ent/viewer"
)

// EnsurePermissions inserts any catalogue entry missing from the database
// and returns the keys it inserted (when two processes start at once, only
// the one that inserts an entry returns it). It is idempotent and runs at
// every start.
func EnsurePermissions(ctx context.Context, c *ent.Client) ([]string, error) {
	bctx := rule.Bypass(ctx, "seeding the permission catalogue")
	existing, err := c.Permission.Query().All(bctx)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, p := range existing {
		have[p.Resource+":"+p.Action] = true
	}
	var added []string
	for _, p := range Catalogue {
		if have[p.Key()] {
			continue
		}
		err := c.Permission.Create().SetResource(p.Resource).SetAction(p.Action).
			SetDescription(p.Description).
			OnConflictColumns(permission.FieldResource, permission.FieldAction).DoNothing().
			Exec(bctx)
		switch {
		case err == nil:
			added = append(added, p.Key())
		case !isNoRows(err):
			return nil, fmt.Errorf("seeding permission %s: %w", p.Key(), err)
		}
	}
	return added, nil
}

// EnsureSystemRoles grants the catalogue entries that have just joined
// it (added, from EnsurePermissions) to every organization's system roles
// whose definition holds them, so existing organizations get what a new
// one would. Only new entries are granted, once: an administrator may have
// edited a system role's permissions (Manager's, Agent's), and that choice
// stays.
func EnsureSystemRoles(ctx context.Context, c *ent.Client, added []string) error {
	if len(added) == 0 {
		return nil
	}
	isNew := map[string]bool{}
	for _, k := range added {
		isNew[k] = true
	}
	bctx := rule.Bypass(ctx, "bringing the system roles up to date")
	perms, err := c.Permission.Query().All(bctx)
	if err != nil {
		return err
	}
	byKey := map[string]uuid.UUID{}
	for _, p := range perms {
		byKey[p.Resource+":"+p.Action] = p.ID
	}
	for _, sr := range SystemRoles() {
		roles, err := c.Role.Query().Where(role.IsSystem(true), role.Name(sr.Name)).WithPermissions().All(bctx)
		if err != nil {
			return err
		}
		for _, ro := range roles {
			have := map[uuid.UUID]bool{}
			for _, p := range ro.Edges.Permissions {
				have[p.ID] = true
			}
			var missing []uuid.UUID
			for _, k := range sr.Permissions {
				if id, ok := byKey[k]; ok && isNew[k] && !have[id] {
					missing = append(missing, id)
				}
			}
			if len(missing) == 0 {
				continue
			}
			if err := c.Role.UpdateOneID(ro.ID).AddPermissionIDs(missing...).Exec(bctx); err != nil {
				return fmt.Errorf("updating system role %s: %w", sr.Name, err)
			}
		}
	}
	return grantDerived(bctx, c, added, byKey)
}

// derivedPermissions are catalogue entries split from an older permission
// that granted what they now do (the new key: the older one).
var derivedPermissions = map[string]string{ManageTransfers: "contacts:update"}

// grantDerived grants each derived entry that has just joined the
// catalogue to every role, custom roles included, that holds the
// permission it split from, so that no role loses what it could do.
func grantDerived(bctx context.Context, c *ent.Client, added []string, byKey map[string]uuid.UUID) error {
	for _, k := range added {
		from, ok := derivedPermissions[k]
		if !ok {
			continue
		}
		resource, action, _ := strings.Cut(from, ":")
		ids, err := c.Role.Query().Where(
			role.HasPermissionsWith(permission.Resource(resource), permission.Action(action)),
			role.Not(role.HasPermissionsWith(permission.ID(byKey[k]))),
		).IDs(bctx)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := c.Role.UpdateOneID(id).AddPermissionIDs(byKey[k]).Exec(bctx); err != nil {
				return fmt.Errorf("granting %s to role %s: %w", k, id, err)
			}
		}
	}
	return nil
}

// isNoRows reports ent's "no rows" answer of an upsert that did nothing.
func isNoRows(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no rows in result set")
}

// OrgSeeder adds per-organization defaults beyond roles (for example the
// chatbot settings); packages that own such defaults register one.
type OrgSeeder func(ctx context.Context, c *ent.Client, orgID uuid.UUID) error

var orgSeeders []OrgSeeder

// RegisterOrgSeeder adds a seeder run for every new organization.
func RegisterOrgSeeder(s OrgSeeder) { orgSeeders = append(orgSeeders, s) }

// SeedOrganization creates the system roles of orgID (and whatever other
// defaults are registered), skipping what exists. c may be a transaction's
// client.
func SeedOrganization(ctx context.Context, c *ent.Client, orgID uuid.UUID) error {
	sctx := viewer.SystemContext(ctx, orgID)
	perms, err := c.Permission.Query().All(sctx)
	if err != nil {
		return err
	}
	byKey := map[string]uuid.UUID{}
	for _, p := range perms {
		byKey[p.Resource+":"+p.Action] = p.ID
	}
	for _, sr := range SystemRoles() {
		exists, err := c.Role.Query().Where(role.Name(sr.Name)).Exist(sctx)
		if err != nil {
			return err
		}
		if exists {
			continue
		}
		ids := make([]uuid.UUID, 0, len(sr.Permissions))
		for _, k := range sr.Permissions {
			if id, ok := byKey[k]; ok {
				ids = append(ids, id)
			}
		}
		err = c.Role.Create().SetName(sr.Name).SetDescription(sr.Description).
			SetIsSystem(true).SetIsDefault(sr.IsDefault).AddPermissionIDs(ids...).Exec(sctx)
		if err != nil {
			return fmt.Errorf("seeding role %s: %w", sr.Name, err)
		}
	}
	if err := seedChatbotSettings(sctx, c); err != nil {
		return err
	}
	for _, seed := range orgSeeders {
		if err := seed(sctx, c, orgID); err != nil {
			return err
		}
	}
	return nil
}

var slugStrip = regexp.MustCompile(`[^a-z0-9]+`)

// Slug derives an organization slug from its name plus a random suffix.
func Slug(name string) string {
	base := strings.Trim(slugStrip.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(base) > 40 {
		base = strings.Trim(base[:40], "-")
	}
	if base == "" {
		base = "org"
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return base + "-" + hex.EncodeToString(b)
}

// CreateOrganization creates an organization with its system roles and
// defaults, and makes ownerID its Admin. c should be a transaction's client.
func CreateOrganization(ctx context.Context, c *ent.Client, name string, ownerID uuid.UUID, ownerDefault bool) (*ent.Organization, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, apperr.Invalidf("name is required")
	}
	if len(name) > 200 {
		return nil, apperr.Invalidf("name must be at most 200 characters")
	}
	bctx := rule.Bypass(ctx, "creating an organization")
	org, err := c.Organization.Create().SetName(name).SetSlug(Slug(name)).Save(bctx)
	if err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	if err := SeedOrganization(ctx, c, org.ID); err != nil {
		return nil, apperr.Wrap(err, "organization")
	}
	if err := addAdmin(ctx, c, org.ID, ownerID, ownerDefault); err != nil {
		return nil, err
	}
	return org, nil
}

// addAdmin makes userID a member of orgID with the system Admin role.
func addAdmin(ctx context.Context, c *ent.Client, orgID, userID uuid.UUID, isDefault bool) error {
	sctx := viewer.SystemContext(ctx, orgID)
	admin, err := c.Role.Query().Where(role.Name(RoleAdmin), role.IsSystem(true)).Only(sctx)
	if err != nil {
		return apperr.Wrap(err, "role")
	}
	err = c.OrganizationMember.Create().SetUserID(userID).
		SetRoleID(admin.ID).SetIsDefault(isDefault).Exec(sctx)
	return apperr.Wrap(err, "membership")
}

// BootstrapResult tells what Bootstrap did.
type BootstrapResult struct {
	Created  bool
	Email    string
	Password string // set only when it was generated
}

// Bootstrap prepares an empty database: the permission catalogue always;
// on first start (no users) a super admin, an organization with its roles
// and defaults, and the admin as its Admin. Idempotent.
func Bootstrap(ctx context.Context, c *ent.Client, email, password, orgName string) (*BootstrapResult, error) {
	added, err := EnsurePermissions(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := EnsureSystemRoles(ctx, c, added); err != nil {
		return nil, err
	}
	bctx := rule.Bypass(ctx, "bootstrap")
	n, err := c.User.Query().Count(bctx)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return &BootstrapResult{}, nil
	}
	res := &BootstrapResult{Created: true, Email: NormalizeEmail(email)}
	if password == "" {
		password = auth.RandomToken(16)
		res.Password = password
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return nil, err
	}
	err = WithTx(ctx, c, func(tx *ent.Client) error {
		u, err := tx.User.Create().SetEmail(res.Email).SetPasswordHash(hash).
			SetFullName("Administrator").SetIsSuperAdmin(true).Save(bctx)
		if err != nil {
			return err
		}
		_, err = CreateOrganization(ctx, tx, orgName, u.ID, true)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return res, nil
}

// WithTx runs fn in a transaction of c (or in c's transaction when c is
// already transactional), committing when fn succeeds.
func WithTx(ctx context.Context, c *ent.Client, fn func(tx *ent.Client) error) error {
	tx, err := c.Tx(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "cannot start a transaction within a transaction") {
			return fn(c)
		}
		return err
	}
	if err := fn(tx.Client()); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// seedChatbotSettings gives an organization its default chatbot settings
// (one row per organization; the schema's defaults are the defaults).
func seedChatbotSettings(sctx context.Context, c *ent.Client) error {
	exists, err := c.ChatbotSettings.Query().Exist(sctx)
	if err != nil || exists {
		return err
	}
	if err := c.ChatbotSettings.Create().Exec(sctx); err != nil {
		return fmt.Errorf("seeding chatbot settings: %w", err)
	}
	return nil
}
