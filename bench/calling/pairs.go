package main

import (
	"context"
	"time"

	"switchboard/calling/media/mediatest"
)

type pair [2]*mediatest.Peer

// directPairs connects peers to each other without the engine.
func directPairs(calls int) ([]pair, error) {
	pairs := make([]pair, 0, calls)
	for range calls {
		a, b, err := newPeers()
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{a, b})
		offer, err := a.CreateOffer()
		if err != nil {
			return nil, err
		}
		answer, err := b.CreateAnswer(offer)
		if err != nil {
			return nil, err
		}
		if err := a.ApplyAnswer(answer); err != nil {
			return nil, err
		}
	}
	return pairs, waitConnected(pairs)
}

// bridgedPairs connects each pair through two bridged engine legs.
func bridgedPairs(engine engineClient, calls int) ([]pair, error) {
	pairs := make([]pair, 0, calls)
	for range calls {
		a, b, err := newPeers()
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, pair{a, b})
		var offers []string
		for _, p := range []*mediatest.Peer{a, b} {
			offer, err := p.CreateOffer()
			if err != nil {
				return nil, err
			}
			offers = append(offers, offer)
		}
		resp, err := engine.do(request{Cmd: "call", Offers: offers})
		if err != nil {
			return nil, err
		}
		for i, p := range []*mediatest.Peer{a, b} {
			if err := p.ApplyAnswer(resp.Answers[i]); err != nil {
				return nil, err
			}
		}
	}
	return pairs, waitConnected(pairs)
}

func newPeers() (*mediatest.Peer, *mediatest.Peer, error) {
	a, err := mediatest.New(mediatest.Options{})
	if err != nil {
		return nil, nil, err
	}
	b, err := mediatest.New(mediatest.Options{})
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, b, nil
}

func waitConnected(pairs []pair) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, pr := range pairs {
		for _, p := range pr {
			if err := p.WaitConnected(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func closeAll(pairs []pair) {
	for _, pr := range pairs {
		pr[0].Close()
		pr[1].Close()
	}
}
