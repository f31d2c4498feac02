package access

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
)

// Failed logins are counted per (email, address) and per address, never
// per account alone: a flood of wrong passwords for an account from other
// addresses must not lock its owner out of theirs.

// checkLoginThrottle refuses a login attempt once too many failures were
// recorded for the email from this address, or from this address in all,
// within loginWindow.
func (s *Service) checkLoginThrottle(ctx context.Context, email, ip string) error {
	pair, addr, err := s.loginFailures(ctx, email, ip)
	if err != nil {
		s.Log.Error("login throttle unavailable", "err", err)
		return apperr.New(apperr.Unavailable, "login temporarily unavailable")
	}
	if pair >= loginFailsPerAccount || addr >= loginFailsPerIP {
		return apperr.New(apperr.TooMany, "too many failed login attempts; try again later")
	}
	return nil
}

// loginFailureKeys are the counters of (email, ip) and of ip.
func (s *Service) loginFailureKeys(email, ip string) (pair, addr string) {
	return s.key("loginfail", "pair", ip, email), s.key("loginfail", "ip", ip)
}

func (s *Service) loginFailures(ctx context.Context, email, ip string) (int64, int64, error) {
	pairKey, addrKey := s.loginFailureKeys(email, ip)
	p := s.Redis.Pipeline()
	a := p.Get(ctx, pairKey)
	i := p.Get(ctx, addrKey)
	_, err := p.Exec(ctx)
	if err != nil && !isNil(err) {
		return 0, 0, err
	}
	an, _ := a.Int64()
	in, _ := i.Int64()
	return an, in, nil
}

// recordLoginFailure counts a failure in fixed windows per (email,
// address) and per address.
func (s *Service) recordLoginFailure(ctx context.Context, email, ip string) {
	pairKey, addrKey := s.loginFailureKeys(email, ip)
	p := s.Redis.TxPipeline()
	for _, k := range []string{pairKey, addrKey} {
		p.SetNX(ctx, k, 0, loginWindow)
		p.Incr(ctx, k)
	}
	if _, err := p.Exec(ctx); err != nil {
		s.Log.Error("recording login failure", "err", err)
	}
}

// clearLoginFailures forgets the failures of email from ip after a
// successful login there.
func (s *Service) clearLoginFailures(ctx context.Context, email, ip string) {
	pairKey, _ := s.loginFailureKeys(email, ip)
	s.Redis.Del(ctx, pairKey)
}

// RetryAfterLogin is how long a throttled client should wait.
const RetryAfterLogin = loginWindow

func isNil(err error) bool { return errors.Is(err, redis.Nil) }
