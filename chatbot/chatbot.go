// Package chatbot owns the chatbot's configuration: the organization's
// settings and their stats, keyword rules, AI contexts, conversation flows
// (their graphs validated on save) and the sessions' read side. It also
// holds the pure functions the bot's runtime calls on that configuration
// (MatchKeyword, MatchContexts, ParseGraph, CompileCondition,
// EvalCondition, Substitute, InBusinessHours). Transports (rest/, graph/)
// call its Service. It depends on ent and secrets, never on graph/ or
// rest/.
package chatbot

import (
	"context"
	"strings"

	"switchboard/apperr"
	"switchboard/database"
	"switchboard/ent"
	"switchboard/internal/valid"
	"switchboard/secrets"
)

// Bounds shared by the configuration.
const (
	MaxButtons        = 3
	MaxButtonTitle    = 20
	MaxNameLength     = 255
	MaxKeywords       = 50
	MaxKeywordLength  = 200
	MaxDescription    = 2000
	MaxContextContent = 50000
	MaxSearchLength   = 200
	// MaxPriority bounds priorities both ways.
	MaxPriority = 1_000_000
)

// Service is the chatbot configuration's operations.
type Service struct {
	Client *ent.Client
	// Secrets encrypts the AI provider's API key at rest.
	Secrets *secrets.Box
}

func (s *Service) db(ctx context.Context) *ent.Client { return database.ClientFor(ctx, s.Client) }

// Page is the paging of a list: Offset rows skipped, at most Limit
// returned.
type Page struct {
	Offset int
	Limit  int
}

func search(s string) (string, error) {
	return valid.Text("search", s, MaxSearchLength)
}

func priority(p int) error {
	if p < -MaxPriority || p > MaxPriority {
		return apperr.Invalidf("priority must be from %d to %d", -MaxPriority, MaxPriority)
	}
	return nil
}

// keywordList trims, drops empties and duplicates (case-insensitive) and
// bounds a list of keywords.
func keywordList(name string, in []string) ([]string, error) {
	if len(in) > MaxKeywords {
		return nil, apperr.Invalidf("%s has at most %d entries", name, MaxKeywords)
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, k := range in {
		t, err := valid.Text(name, k, MaxKeywordLength)
		if err != nil {
			return nil, err
		}
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	return out, nil
}
