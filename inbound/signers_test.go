package inbound

import (
	"context"
	"sync"
	"testing"

	"switchboard/database"
	"switchboard/internal/testkit"
)

// Deliveries arriving together for a phone number id not cached (a burst
// of calls' webhooks after an account change flushed the cache) share one
// query of its account; the next ones read the cache.
func TestSignersShareOneQuery(t *testing.T) {
	db := testkit.OpenDB(t)
	_, octx := testkit.NewOrg(t, db.Client, "signers")
	if err := db.Client.Account.Create().SetName("Main").SetPhoneID("550000111").SetBusinessID("b1").Exec(octx); err != nil {
		t.Fatal(err)
	}
	s := &Service{Client: db.Client}
	var stmts database.Statements
	ctx := database.CountStatements(context.Background(), &stmts)

	const deliveries = 50
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, deliveries)
	for range deliveries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			sgs, err := s.signers(ctx, []string{"550000111"})
			if err == nil && (len(sgs) != 1 || sgs[0].acc.PhoneID != "550000111") {
				t.Errorf("signers = %+v, want the account", sgs)
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One query, or a few when a goroutine came after the first flight
	// ended but before its rows were cached: never one per delivery.
	if n := stmts.N(); n < 1 || n > 3 {
		t.Fatalf("%d deliveries sent %d account queries, want 1 (at most 3)", deliveries, n)
	}
	before := stmts.N()
	if _, err := s.signers(ctx, []string{"550000111"}); err != nil || stmts.N() != before {
		t.Fatalf("a cached account was queried again (%v)", err)
	}
	s.ForgetAccounts()
	if _, err := s.signers(ctx, []string{"550000111"}); err != nil || stmts.N() != before+1 {
		t.Fatalf("after ForgetAccounts the account was not read again (%v)", err)
	}
}
