package ivr

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// Checker looks up what a menu refers to, in the organization and account
// of the flow being saved.
type Checker interface {
	TeamExists(ctx context.Context, teamID uuid.UUID) (bool, error)
	AgentInTeam(ctx context.Context, teamID, agentID uuid.UUID) (bool, error)
	FlowExists(ctx context.Context, flowID uuid.UUID) (bool, error) // an IVR flow of the same organization and account
	AudioExists(ctx context.Context, filename string) (bool, error)
}

// URLPolicy may be implemented by a Checker to say whether http_callback
// URLs may name loopback or private addresses (OUTBOUND_ALLOW_PRIVATE).
// Without it they may not.
type URLPolicy interface {
	AllowPrivateURLs() bool
}

// Validate checks what Parse cannot: http_callback URLs against the
// outbound address rules (netguard), and, with a non-nil check, that
// transfer teams exist, agents belong to their team, goto_flow targets
// are flows of the organization and account, and audio files exist.
// Errors: invalid naming the node and field; the Checker's own errors
// are returned as they are.
func (g *Graph) Validate(ctx context.Context, check Checker) error {
	allowPrivate := false
	if p, ok := check.(URLPolicy); ok {
		allowPrivate = p.AllowPrivateURLs()
	}
	seen := lookups{}
	for _, n := range g.Nodes {
		if n.HTTP != nil {
			if err := checkURLAddress(n.HTTP.URL, allowPrivate); err != nil {
				return nodeErr(n.ID, "url: %s", err.Error())
			}
		}
		if check == nil {
			continue
		}
		if err := seen.node(ctx, check, n); err != nil {
			return err
		}
	}
	return nil
}

// lookups remembers answers, so a menu naming the same team or file in
// many nodes costs one query each.
type lookups map[string]bool

func (l lookups) ask(key string, q func() (bool, error)) (bool, error) {
	if ok, done := l[key]; done {
		return ok, nil
	}
	ok, err := q()
	if err != nil {
		return false, fmt.Errorf("ivr: checking %s: %w", key, err)
	}
	l[key] = ok
	return ok, nil
}

func (l lookups) node(ctx context.Context, check Checker, n *Node) error {
	for _, name := range n.AudioFiles() {
		ok, err := l.ask("audio "+name, func() (bool, error) { return check.AudioExists(ctx, name) })
		if err != nil {
			return err
		}
		if !ok {
			return nodeErr(n.ID, "audio file %q not found", name)
		}
	}
	switch {
	case n.Transfer != nil:
		return l.transfer(ctx, check, n)
	case n.GotoFlow != nil:
		id := n.GotoFlow.FlowID
		ok, err := l.ask("flow "+id.String(), func() (bool, error) { return check.FlowExists(ctx, id) })
		if err != nil {
			return err
		}
		if !ok {
			return nodeErr(n.ID, "flow_id: no IVR flow %s in this account", id)
		}
	}
	return nil
}

func (l lookups) transfer(ctx context.Context, check Checker, n *Node) error {
	team, agent := n.Transfer.TeamID, n.Transfer.AgentID
	ok, err := l.ask("team "+team.String(), func() (bool, error) { return check.TeamExists(ctx, team) })
	if err != nil {
		return err
	}
	if !ok {
		return nodeErr(n.ID, "team_id: team %s not found", team)
	}
	if agent == uuid.Nil {
		return nil
	}
	ok, err = l.ask("agent "+team.String()+"/"+agent.String(), func() (bool, error) { return check.AgentInTeam(ctx, team, agent) })
	if err != nil {
		return err
	}
	if !ok {
		return nodeErr(n.ID, "agent_id: agent %s is not a member of team %s", agent, team)
	}
	return nil
}
