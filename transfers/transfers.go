// Package transfers owns the chatbot's hand-offs of a contact's
// conversation to human agents: creating one (applying the team's
// assignment strategy), the queues agents see and pick from, assigning,
// unassigning and resuming the chatbot. Every change records its domain
// event (transfer:created, transfer:assigned, transfer:resumed) once, in
// its transaction.
//
// Who may do what. The operations' permissions are in access/operations.go
// (listing needs chatbot:read; creating, picking, assigning and resuming
// need messages:create, which Agents hold). Managing other people's
// transfers needs the membership rule access.ManagesTransfers
// (access.ManageTransfers, transfers:manage, held by Admin and Manager
// and not by Agent): assigning a transfer to someone else, unassigning or
// resuming a transfer someone else holds, picking from a team the viewer is
// not a member of, picking when allow_agent_queue_pickup is off, and seeing
// every transfer. Without it a member sees the transfers assigned to them
// and the queues they may pick from (the general queue and the queues of
// their teams); with agent_current_conversation_only on, only the transfers
// assigned to them (queue counts included).
package transfers

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"switchboard/access"
	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/ent/agenttransfer"
	"switchboard/ent/chatbotsettings"
	"switchboard/ent/contact"
	"switchboard/ent/organizationmember"
	"switchboard/ent/predicate"
	"switchboard/ent/teammember"
	"switchboard/ent/transfertimer"
	"switchboard/ent/viewer"
	"switchboard/events"
	"switchboard/internal/valid"
	"switchboard/worker"
)

// Bounds of the inputs and of a page.
const (
	MaxNotesLength       = 2000
	MaxChatAccountLength = 100
	MaxSourceLength      = 32
	DefaultPageSize      = 20
	MaxPageSize          = 100
	MaxOffset            = 1_000_000
)

// Statuses of a transfer.
const (
	StatusActive  = "active"
	StatusResumed = "resumed"
)

// Service is the transfers' operations.
type Service struct {
	Client *ent.Client
	// Events carries the domain events; nil records none.
	Events *events.Bus
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Queue queues the timers' tasks; nil queues none (the recovery
	// sweep then finds them).
	Queue *worker.Client
	// Sender sends the SLA and client messages to contacts
	// (messaging.Service); nil sends none.
	Sender Sender
	Log    *slog.Logger
	// AfterFire, when set, sees every timer this node fired, after its
	// commit (tests and benchmarks count them).
	AfterFire func(Fired)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateInput is a new transfer.
type CreateInput struct {
	ContactID   uuid.UUID
	ChatAccount string
	TeamID      *uuid.UUID
	Notes       string
	Source      string
}

// settings are the chatbot settings transfers follow (the defaults of the
// schema when the organization has none stored).
type settings struct {
	allowPickup, sameAgent, currentOnly bool
	// stored is the organization's row; nil when none is stored (the
	// timers are then off, as the schema's defaults say).
	stored *ent.ChatbotSettings
}

func (s *Service) settings(ctx context.Context, db *ent.Client) (settings, error) {
	cs, err := db.ChatbotSettings.Query().Order(ent.Asc(chatbotsettings.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return settings{allowPickup: true, sameAgent: true}, nil
	}
	if err != nil {
		return settings{}, apperr.Wrap(err, "chatbot settings")
	}
	return settings{allowPickup: cs.AllowAgentQueuePickup, sameAgent: cs.AssignToSameAgent,
		currentOnly: cs.AgentCurrentConversationOnly, stored: cs}, nil
}

func (in *CreateInput) normalize() error {
	in.Source = strings.TrimSpace(in.Source)
	if in.Source == "" {
		in.Source = "manual"
	}
	if in.ContactID == uuid.Nil {
		return valid.Required("contact_id")
	}
	var err error
	if in.ChatAccount, err = valid.Text("chat_account", in.ChatAccount, MaxChatAccountLength); err != nil {
		return err
	}
	if in.Notes, err = valid.Text("notes", in.Notes, MaxNotesLength); err != nil {
		return err
	}
	if len(in.Source) > MaxSourceLength || !token(in.Source) {
		return apperr.Invalidf("source must be a word of lowercase letters, digits and underscores (at most %d)", MaxSourceLength)
	}
	return nil
}

func token(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// Create opens a transfer of the contact: active, assigned by the rules
// (the contact's previous agent when assign_to_same_agent is on and they
// are available; else the team's strategy: round_robin or load_balanced
// among its available members; manual, no team, or nobody available
// leaves it queued). One active transfer per contact. Errors: invalid,
// not_found (contact, team), conflict (an active transfer exists).
func (s *Service) Create(ctx context.Context, in CreateInput) (*View, error) {
	if err := in.normalize(); err != nil {
		return nil, err
	}
	var out *View
	err := database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		// The contact's row is the lock that keeps a second active
		// transfer of it from being created concurrently.
		if _, err := db.Contact.Query().Where(contact.ID(in.ContactID), database.Locked()).Only(ctx); err != nil {
			return apperr.Wrap(err, "contact")
		}
		exists, err := db.AgentTransfer.Query().
			Where(agenttransfer.ContactID(in.ContactID), agenttransfer.StatusEQ(agenttransfer.StatusActive)).Exist(ctx)
		if err != nil {
			return apperr.Wrap(err, "transfer")
		}
		if exists {
			return apperr.New(apperr.Conflict, "the contact already has an active transfer")
		}
		var tm *ent.Team
		if in.TeamID != nil {
			if tm, err = db.Team.Get(ctx, *in.TeamID); err != nil {
				return apperr.Wrap(err, "team")
			}
			if !tm.IsActive {
				return apperr.Invalidf("team %s is not active", tm.Name)
			}
		}
		st, err := s.settings(ctx, db)
		if err != nil {
			return err
		}
		agent, err := s.chooseAgent(ctx, db, st, in.ContactID, tm)
		if err != nil {
			return err
		}
		now := s.now()
		c := db.AgentTransfer.Create().SetContactID(in.ContactID).SetChatAccount(in.ChatAccount).
			SetNillableTeamID(in.TeamID).SetNotes(in.Notes).SetSource(in.Source).SetTransferredAt(now)
		if agent != nil {
			c.SetAgentID(*agent).SetAssignedAt(now)
		}
		t, err := c.Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "transfer")
		}
		if err := s.startTimers(ctx, db, st, t, tm); err != nil {
			return err
		}
		if out, err = s.view(ctx, db, t.ID); err != nil {
			return err
		}
		return s.record(ctx, events.TransferCreated, out)
	})
	return out, err
}

func (s *Service) isTeamMember(ctx context.Context, db *ent.Client, teamID, userID uuid.UUID) bool {
	ok, err := db.TeamMember.Query().Where(teammember.TeamID(teamID), teammember.UserID(userID)).Exist(ctx)
	return err == nil && ok
}

func (s *Service) myTeams(ctx context.Context, db *ent.Client, userID uuid.UUID) ([]uuid.UUID, error) {
	ids, err := db.TeamMember.Query().Where(teammember.UserID(userID)).
		Select(teammember.FieldTeamID).Strings(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "team member")
	}
	out := make([]uuid.UUID, 0, len(ids))
	for _, s := range ids {
		if id, err := uuid.Parse(s); err == nil {
			out = append(out, id)
		}
	}
	return out, nil
}

// viewerUser is the acting user.
func viewerUser(ctx context.Context) (*viewer.Viewer, error) {
	v := viewer.FromContext(ctx)
	if v == nil || v.UserID == uuid.Nil {
		return nil, apperr.New(apperr.Unauthenticated, "transfers need a user")
	}
	return v, nil
}

// Queue names a queue: the general one (no team), one team's, or (All)
// every queue the viewer may take from.
type Queue struct {
	All     bool
	General bool
	TeamID  uuid.UUID
}

// ParseQueue reads a team_id query value: "" (every queue), "general" or a
// team's uuid.
func ParseQueue(s string) (Queue, error) {
	switch s {
	case "":
		return Queue{All: true}, nil
	case "general":
		return Queue{General: true}, nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return Queue{}, apperr.Invalidf("team_id must be a team's UUID or \"general\"")
	}
	return Queue{TeamID: id}, nil
}

// Pick assigns the oldest unassigned active transfer of the queue to the
// viewer, or returns nil when the queue is empty. On PostgreSQL the row is
// taken with SELECT ... FOR UPDATE SKIP LOCKED, so concurrent picks each
// get a different transfer without waiting; SQLite's single writer
// serializes them. Errors: forbidden (queue pickup off, or a team the
// viewer is not a member of, without access.ManagesTransfers),
// not_found (team).
func (s *Service) Pick(ctx context.Context, q Queue) (*View, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	manager := access.ManagesTransfers(v)
	var out *View
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		st, err := s.settings(ctx, db)
		if err != nil {
			return err
		}
		if !st.allowPickup && !manager {
			return apperr.Forbiddenf("picking transfers from the queue is turned off (allow_agent_queue_pickup)")
		}
		var where predicate.AgentTransfer
		switch {
		case q.General:
			where = agenttransfer.TeamIDIsNil()
		case !q.All:
			if _, err := db.Team.Get(ctx, q.TeamID); err != nil {
				return apperr.Wrap(err, "team")
			}
			if !manager && !s.isTeamMember(ctx, db, q.TeamID, v.UserID) {
				return apperr.Forbiddenf("only the team's members can pick from its queue")
			}
			where = agenttransfer.TeamID(q.TeamID)
		case manager:
			where = func(*sql.Selector) {}
		default:
			teams, err := s.myTeams(ctx, db, v.UserID)
			if err != nil {
				return err
			}
			where = agenttransfer.Or(agenttransfer.TeamIDIsNil(), agenttransfer.TeamIDIn(teams...))
		}
		t, err := db.AgentTransfer.Query().
			Where(agenttransfer.StatusEQ(agenttransfer.StatusActive), agenttransfer.AgentIDIsNil(), where,
				database.SkipLocked()).
			Order(ent.Asc(agenttransfer.FieldTransferredAt), ent.Asc(agenttransfer.FieldID)).First(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return apperr.Wrap(err, "transfer")
		}
		n, err := db.AgentTransfer.Update().Where(agenttransfer.ID(t.ID), agenttransfer.AgentIDIsNil()).
			SetAgentID(v.UserID).SetAssignedAt(s.now()).Save(ctx)
		if err != nil {
			return apperr.Wrap(err, "transfer")
		}
		if n != 1 {
			return apperr.New(apperr.Conflict, "the transfer was taken by someone else; pick again")
		}
		if t.TeamID != nil {
			if err := s.stamp(ctx, db, *t.TeamID, v.UserID); err != nil {
				return err
			}
		}
		if out, err = s.view(ctx, db, t.ID); err != nil {
			return err
		}
		return s.record(ctx, events.TransferAssigned, out)
	})
	return out, err
}

// AssignInput moves a transfer: AgentID nil unassigns it back to its
// queue; TeamID, when set, moves it to that team.
type AssignInput struct {
	AgentID *uuid.UUID
	TeamID  *uuid.UUID
}

// Assign sets or clears the agent of an active transfer (and its team).
// The agent must belong to the organization, and to the transfer's team
// when it has one. Assigning to someone else, or taking a transfer from
// someone else, needs access.ManagesTransfers. Errors: not_found, forbidden,
// invalid (agent not a member), conflict (the transfer is resumed).
func (s *Service) Assign(ctx context.Context, id uuid.UUID, in AssignInput) (*View, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	var out *View
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		t, err := s.lockTransfer(ctx, db, id)
		if err != nil {
			return err
		}
		manager := access.ManagesTransfers(v)
		if !manager {
			if in.AgentID != nil && *in.AgentID != v.UserID {
				return apperr.Forbiddenf("assigning a transfer to someone else needs %s", access.ManageTransfers)
			}
			if t.AgentID != nil && *t.AgentID != v.UserID {
				return apperr.Forbiddenf("the transfer is assigned to someone else")
			}
		}
		teamID := t.TeamID
		if in.TeamID != nil {
			if _, err := db.Team.Get(ctx, *in.TeamID); err != nil {
				return apperr.Wrap(err, "team")
			}
			teamID = in.TeamID
		}
		u := db.AgentTransfer.UpdateOne(t).SetNillableTeamID(teamID)
		if in.AgentID == nil {
			u.ClearAgentID().ClearAssignedAt()
		} else {
			member, err := db.OrganizationMember.Query().Where(organizationmember.UserID(*in.AgentID)).Exist(ctx)
			if err != nil {
				return apperr.Wrap(err, "member")
			}
			if !member {
				return apperr.Invalidf("agent_id is not a member of the organization")
			}
			if teamID != nil && !s.isTeamMember(ctx, db, *teamID, *in.AgentID) {
				return apperr.Invalidf("agent_id is not a member of the transfer's team")
			}
			u.SetAgentID(*in.AgentID).SetAssignedAt(s.now())
			if teamID != nil {
				if err := s.stamp(ctx, db, *teamID, *in.AgentID); err != nil {
					return err
				}
			}
		}
		if err := u.Exec(ctx); err != nil {
			return apperr.Wrap(err, "transfer")
		}
		// Someone chose the agent: the strategy's timeout no longer runs.
		if err := s.cancelTimers(ctx, db, t.ID, transfertimer.KindAgentTimeout); err != nil {
			return err
		}
		if out, err = s.view(ctx, db, t.ID); err != nil {
			return err
		}
		return s.record(ctx, events.TransferAssigned, out)
	})
	return out, err
}

// Resume ends the human hand-off: the transfer becomes resumed and the
// chatbot answers the contact again. The assigned agent, or a member with
// access.ManageTransfers, may resume it. Errors: not_found, forbidden, conflict
// (already resumed).
func (s *Service) Resume(ctx context.Context, id uuid.UUID) (*View, error) {
	v, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	var out *View
	err = database.InTx(ctx, s.Client, func(ctx context.Context, db *ent.Client) error {
		t, err := s.lockTransfer(ctx, db, id)
		if err != nil {
			return err
		}
		if !access.ManagesTransfers(v) && (t.AgentID == nil || *t.AgentID != v.UserID) {
			return apperr.Forbiddenf("only the assigned agent or a member who may update contacts can resume this transfer")
		}
		now := s.now()
		if err := db.AgentTransfer.UpdateOne(t).SetStatus(agenttransfer.StatusResumed).
			SetResumedAt(now).SetResumedByID(v.UserID).Exec(ctx); err != nil {
			return apperr.Wrap(err, "transfer")
		}
		if err := s.cancelTimers(ctx, db, t.ID); err != nil {
			return err
		}
		if out, err = s.view(ctx, db, t.ID); err != nil {
			return err
		}
		return s.record(ctx, events.TransferResumed, out)
	})
	return out, err
}

// lockTransfer loads an active transfer for a change, locked on
// PostgreSQL.
func (s *Service) lockTransfer(ctx context.Context, db *ent.Client, id uuid.UUID) (*ent.AgentTransfer, error) {
	t, err := db.AgentTransfer.Query().Where(agenttransfer.ID(id), database.Locked()).Only(ctx)
	if err != nil {
		return nil, apperr.Wrap(err, "transfer")
	}
	if t.Status != agenttransfer.StatusActive {
		return nil, apperr.New(apperr.Conflict, "the transfer is already resumed")
	}
	return t, nil
}

func (s *Service) record(ctx context.Context, typ events.Type, v *View) error {
	if s.Events == nil {
		return nil
	}
	return s.Events.Record(ctx, events.Event{Type: typ, OrgID: v.OrganizationID, Payload: v})
}
