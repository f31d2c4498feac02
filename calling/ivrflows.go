package calling

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"switchboard/apperr"
	"switchboard/calling/audio"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/account"
	"switchboard/ent/ivrflow"
	"switchboard/ent/predicate"
	"switchboard/ent/team"
	"switchboard/ent/teammember"
	"switchboard/ent/viewer"
	"switchboard/internal/valid"
)

// Bounds of IVR flow fields.
const (
	MaxFlowNameLength        = 100
	MaxFlowDescriptionLength = 1000
	MaxWelcomeAudioLength    = 2000
)

// IVRFlowInput is an IVR flow's fields; on update, nil fields keep their
// value.
type IVRFlowInput struct {
	ChatAccount     *string
	Name            *string
	Description     *string
	IsActive        *bool
	IsCallStart     *bool
	IsOutgoingEnd   *bool
	Menu            map[string]any
	WelcomeAudioURL *string
}

// IVRFlowPage is a page of IVR flows and the count of all that match.
type IVRFlowPage struct {
	IVRFlows []*ent.IVRFlow
	Total    int
}

// live hides soft-deleted flows.
var live = ivrflow.DeletedAtIsNil()

// IVRFlows returns the organization's flows (of accountName when it is
// not empty), newest first. Errors: invalid (page bounds, account).
func (s *Service) IVRFlows(ctx context.Context, accountName string, offset, limit int) (*IVRFlowPage, error) {
	if err := pageBounds(offset, limit); err != nil {
		return nil, err
	}
	where := []predicate.IVRFlow{live}
	if accountName != "" {
		if err := checkFilterText("account", accountName); err != nil {
			return nil, err
		}
		where = append(where, ivrflow.ChatAccount(accountName))
	}
	q := database.ClientFor(ctx, s.Client).IVRFlow.Query().Where(where...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "IVR flow")
	}
	fs, err := q.Order(ent.Desc(ivrflow.FieldCreatedAt), ent.Desc(ivrflow.FieldID)).
		Offset(offset).Limit(min(limit, MaxPageSize)).All(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "IVR flow")
	}
	return &IVRFlowPage{IVRFlows: fs, Total: total}, nil
}

// IVRFlow returns a flow. Errors: not_found (also a deleted one).
func (s *Service) IVRFlow(ctx context.Context, id uuid.UUID) (*ent.IVRFlow, error) {
	f, err := database.ClientFor(ctx, s.Client).IVRFlow.Query().Where(ivrflow.ID(id), live).Only(ctx)
	return f, apperr.Wrap(err, "IVR flow")
}

// CreateIVRFlow adds a flow: chat_account (an account of the
// organization) and name are required; is_active defaults to true. A flow
// made the active call start (or outgoing end) of its account takes that
// role from the account's other flows. Errors: invalid (fields, an
// unknown account, a menu that does not validate).
func (s *Service) CreateIVRFlow(ctx context.Context, in IVRFlowInput) (*ent.IVRFlow, error) {
	if in.ChatAccount == nil {
		return nil, apperr.Invalidf("chat_account is required")
	}
	if in.Name == nil {
		return nil, apperr.Invalidf("name is required")
	}
	db := database.ClientFor(ctx, s.Client)
	f, err := s.checkFlow(ctx, db, in, nil)
	if err != nil {
		return nil, err
	}
	v := viewer.FromContext(ctx)
	c := db.IVRFlow.Create().SetChatAccount(f.account).SetName(f.name).
		SetNillableDescription(f.description).SetNillableIsActive(in.IsActive).
		SetNillableIsCallStart(in.IsCallStart).SetNillableIsOutgoingEnd(in.IsOutgoingEnd).
		SetNillableWelcomeAudioURL(f.welcome)
	if in.Menu != nil {
		c.SetMenu(in.Menu)
	}
	if v != nil && v.UserID != uuid.Nil {
		c.SetCreatedByID(v.UserID).SetUpdatedByID(v.UserID)
	}
	flow, err := c.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "IVR flow")
	}
	return flow, s.keepRolesUnique(ctx, db, flow)
}

// UpdateIVRFlow changes the given fields of a flow (see CreateIVRFlow).
// Errors: not_found, invalid.
func (s *Service) UpdateIVRFlow(ctx context.Context, id uuid.UUID, in IVRFlowInput) (*ent.IVRFlow, error) {
	db := database.ClientFor(ctx, s.Client)
	cur, err := db.IVRFlow.Query().Where(ivrflow.ID(id), live).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "IVR flow")
	}
	f, err := s.checkFlow(ctx, db, in, cur)
	if err != nil {
		return nil, err
	}
	u := db.IVRFlow.UpdateOne(cur).SetNillableDescription(f.description).SetNillableIsActive(in.IsActive).
		SetNillableIsCallStart(in.IsCallStart).SetNillableIsOutgoingEnd(in.IsOutgoingEnd).
		SetNillableWelcomeAudioURL(f.welcome)
	if in.ChatAccount != nil {
		u.SetChatAccount(f.account)
	}
	if in.Name != nil {
		u.SetName(f.name)
	}
	if in.Menu != nil {
		u.SetMenu(in.Menu)
	}
	if v := viewer.FromContext(ctx); v != nil && v.UserID != uuid.Nil {
		u.SetUpdatedByID(v.UserID)
	}
	flow, err := u.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "IVR flow")
	}
	return flow, s.keepRolesUnique(ctx, db, flow)
}

// DeleteIVRFlow soft-deletes a flow: it disappears from every read and
// loses its roles. Errors: not_found.
func (s *Service) DeleteIVRFlow(ctx context.Context, id uuid.UUID) error {
	db := database.ClientFor(ctx, s.Client)
	n, err := db.IVRFlow.Update().Where(ivrflow.ID(id), live).
		SetDeletedAt(s.now().UTC()).SetIsActive(false).SetIsCallStart(false).SetIsOutgoingEnd(false).Save(ctx)
	if err != nil {
		return apperr.Wrap(err, "IVR flow")
	}
	if n == 0 {
		return apperr.NotFoundf("IVR flow not found")
	}
	return nil
}

// keepRolesUnique takes the call start and outgoing end roles away from
// the account's other flows when flow, active, holds them: one active
// flow per role and account. It runs in the caller's transaction.
func (s *Service) keepRolesUnique(ctx context.Context, db *ent.Client, flow *ent.IVRFlow) error {
	if !flow.IsActive {
		return nil
	}
	others := []predicate.IVRFlow{live, ivrflow.ChatAccount(flow.ChatAccount), ivrflow.IDNEQ(flow.ID)}
	if flow.IsCallStart {
		err := db.IVRFlow.Update().Where(append(others, ivrflow.IsCallStart(true))...).SetIsCallStart(false).Exec(ctx)
		if err != nil {
			return apperr.Wrap(err, "IVR flow")
		}
	}
	if flow.IsOutgoingEnd {
		err := db.IVRFlow.Update().Where(append(others, ivrflow.IsOutgoingEnd(true))...).SetIsOutgoingEnd(false).Exec(ctx)
		if err != nil {
			return apperr.Wrap(err, "IVR flow")
		}
	}
	return nil
}

// checkedFlow are an input's validated fields.
type checkedFlow struct {
	account     string
	name        string
	description *string
	welcome     *string
}

// checkFlow validates the given fields of in; cur is the stored flow on
// update (nil on create). Errors: invalid.
func (s *Service) checkFlow(ctx context.Context, db *ent.Client, in IVRFlowInput, cur *ent.IVRFlow) (checkedFlow, error) {
	var f checkedFlow
	var err error
	if cur != nil {
		f.account = cur.ChatAccount
	}
	if in.ChatAccount != nil {
		if f.account, err = s.checkAccount(ctx, db, *in.ChatAccount); err != nil {
			return f, err
		}
	}
	if in.Name != nil {
		if f.name, err = valid.RequiredText("name", *in.Name, MaxFlowNameLength); err != nil {
			return f, err
		}
	}
	if in.Description != nil {
		d, err := valid.Text("description", *in.Description, MaxFlowDescriptionLength)
		if err != nil {
			return f, err
		}
		f.description = &d
	}
	if in.WelcomeAudioURL != nil {
		w, err := valid.Text("welcome_audio_url", *in.WelcomeAudioURL, MaxWelcomeAudioLength)
		if err != nil {
			return f, err
		}
		f.welcome = &w
	}
	if len(in.Menu) > 0 {
		var self *uuid.UUID
		if cur != nil {
			self = &cur.ID
		}
		chk := &menuChecker{s: s, db: db, account: f.account, self: self}
		if err := validateMenu(ctx, in.Menu, chk); err != nil {
			return f, err
		}
	}
	return f, nil
}

// checkAccount returns name when it names an account of the
// organization. Errors: invalid.
func (s *Service) checkAccount(ctx context.Context, db *ent.Client, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", apperr.Invalidf("chat_account is required")
	}
	if err := checkFilterText("chat_account", name); err != nil {
		return "", err
	}
	ok, err := db.Account.Query().Where(account.Name(name)).Exist(ctx)
	if err != nil {
		return "", apperr.Wrap(err, "account")
	}
	if !ok {
		return "", apperr.Invalidf("chat_account %q is not an account of this organization", name)
	}
	return name, nil
}

// menuChecker answers an IVR menu's lookups in the organization and
// account of the flow being saved (calling/ivr's Checker).
type menuChecker struct {
	s       *Service
	db      *ent.Client
	account string
	// self is the flow being updated: a menu may go to its own flow.
	self *uuid.UUID
}

// TeamExists reports whether teamID is a team of the organization.
func (c *menuChecker) TeamExists(ctx context.Context, teamID uuid.UUID) (bool, error) {
	return c.db.Team.Query().Where(team.ID(teamID)).Exist(ctx)
}

// AgentInTeam reports whether agentID is a member of teamID.
func (c *menuChecker) AgentInTeam(ctx context.Context, teamID, agentID uuid.UUID) (bool, error) {
	return c.db.TeamMember.Query().Where(teammember.TeamID(teamID), teammember.UserID(agentID)).Exist(ctx)
}

// FlowExists reports whether flowID is a live flow of the same account.
func (c *menuChecker) FlowExists(ctx context.Context, flowID uuid.UUID) (bool, error) {
	if c.self != nil && *c.self == flowID {
		return true, nil
	}
	return c.db.IVRFlow.Query().Where(ivrflow.ID(flowID), live, ivrflow.ChatAccount(c.account)).Exist(ctx)
}

// AudioExists reports whether the organization has the audio file.
func (c *menuChecker) AudioExists(ctx context.Context, filename string) (bool, error) {
	if c.s.Audio == nil {
		return false, nil
	}
	f, err := c.s.Audio.Open(viewer.FromContext(ctx).OrgID, filename)
	if errors.Is(err, audio.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
}

// AllowPrivateURLs says whether http_callback nodes may name private
// addresses (OUTBOUND_ALLOW_PRIVATE).
func (c *menuChecker) AllowPrivateURLs() bool { return c.s.AllowPrivate }
