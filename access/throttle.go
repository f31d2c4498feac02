package access

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"switchboard/apperr"
)

// checkLoginThrottle refuses a login attempt once too many failures were
// recorded for the account or the client address within loginWindow.
func (s *Service) checkLoginThrottle(ctx context.Context, email, ip string) error {
	acct, ipn, err := s.loginFailures(ctx, email, ip)
	if err != nil {
		s.Log.Error("login throttle unavailable", "err", err)
		return apperr.New(apperr.Unavailable, "login temporarily unavailable")
	}
	if acct >= loginFailsPerAccount || ipn >= loginFailsPerIP {
		return apperr.New(apperr.TooMany, "too many failed login attempts; try again later")
	}
	return nil
}

func (s *Service) loginFailures(ctx context.Context, email, ip string) (int64, int64, error) {
	p := s.Redis.Pipeline()
	a := p.Get(ctx, s.key("loginfail", "acct", email))
	i := p.Get(ctx, s.key("loginfail", "ip", ip))
	_, err := p.Exec(ctx)
	if err != nil && !isNil(err) {
		return 0, 0, err
	}
	an, _ := a.Int64()
	in, _ := i.Int64()
	return an, in, nil
}

// recordLoginFailure counts a failure in fixed windows per account and per
// address.
func (s *Service) recordLoginFailure(ctx context.Context, email, ip string) {
	p := s.Redis.TxPipeline()
	for _, k := range []string{s.key("loginfail", "acct", email), s.key("loginfail", "ip", ip)} {
		p.SetNX(ctx, k, 0, loginWindow)
		p.Incr(ctx, k)
	}
	if _, err := p.Exec(ctx); err != nil {
		s.Log.Error("recording login failure", "err", err)
	}
}

func (s *Service) clearLoginFailures(ctx context.Context, email string) {
	s.Redis.Del(ctx, s.key("loginfail", "acct", email))
}

// RetryAfterLogin is how long a throttled client should wait.
const RetryAfterLogin = loginWindow

func isNil(err error) bool { return errors.Is(err, redis.Nil) }
