package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// TokenType says what a token may be used for. It travels in the "typ" claim
// so that one kind of token can never be used as another.
type TokenType string

// The token types.
const (
	// TokenAccess authenticates API requests.
	TokenAccess TokenType = "access"
	// TokenRefresh can only be exchanged for new tokens at the refresh
	// endpoint.
	TokenRefresh TokenType = "refresh"
	// TokenWS authenticates one WebSocket connection, once.
	TokenWS TokenType = "ws"
)

// Default token lifetimes and issuer, used when [TokenOptions] leaves them
// zero.
const (
	// DefaultAccessTTL is the spec's access token lifetime.
	DefaultAccessTTL = time.Hour
	// DefaultRefreshTTL is the spec's refresh token lifetime.
	DefaultRefreshTTL = 7 * 24 * time.Hour
	// DefaultWSTTL is the WebSocket token lifetime: long enough to open
	// the socket, short enough that a leaked URL is soon useless.
	DefaultWSTTL = 60 * time.Second
	// DefaultIssuer is the "iss" claim.
	DefaultIssuer = "switchboard"
)

// Errors returned by [Tokens.Parse]. Every failure wraps exactly one of them,
// so callers can tell an expired token (the client should refresh) from a
// bad one with errors.Is.
var (
	// ErrTokenExpired means the token was genuine but its exp has passed.
	ErrTokenExpired = errors.New("auth: token expired")
	// ErrTokenInvalid means the token is malformed, not signed with our
	// key, uses another algorithm, was issued by someone else, is not yet
	// valid, or lacks a required claim.
	ErrTokenInvalid = errors.New("auth: token invalid")
	// ErrWrongTokenType means the token is genuine and current but of
	// another type than the caller wants (for example a refresh token
	// offered as an access token).
	ErrWrongTokenType = errors.New("auth: wrong token type")
)

// signingMethod is the only algorithm issued and accepted.
var signingMethod = jwt.SigningMethodHS256

// TokenOptions configures [NewTokens]. Zero fields take the defaults.
type TokenOptions struct {
	// AccessTTL is the lifetime of access tokens (default 1 hour).
	AccessTTL time.Duration
	// RefreshTTL is the lifetime of refresh tokens (default 7 days).
	RefreshTTL time.Duration
	// WSTTL is the lifetime of WebSocket tokens (default 60 seconds).
	WSTTL time.Duration
	// Issuer is written to and required in the "iss" claim (default
	// "switchboard").
	Issuer string
	// Now returns the current time; tests inject a fixed clock (default
	// time.Now).
	Now func() time.Time
}

// Claims are the claims of every token this package issues.
//
// Subject is the user id and ID (jti) a random UUID. Parse guarantees that
// Subject is a UUID, that OrgID is not nil, that access and refresh tokens
// carry a FamilyID, and that a WebSocket token carries a FamilyID or a
// KeyID.
type Claims struct {
	jwt.RegisteredClaims
	// Type is the token type ("typ").
	Type TokenType `json:"typ"`
	// OrgID is the organization the token is scoped to ("org").
	OrgID uuid.UUID `json:"org"`
	// FamilyID is the session's token family ("fam"); rotation keeps the
	// family so reuse of an old token can revoke all of it, and revoking a
	// family (logout) ends its access tokens too. Access and refresh
	// tokens carry it; a WebSocket token carries the family of the session
	// it was issued to, so that ending the session refuses it too.
	FamilyID uuid.UUID `json:"fam,omitzero"`
	// KeyID is the API key a WebSocket token was issued to ("key"): the
	// socket acts as that key, with its limits, never as its owner's
	// session. A WebSocket token carries either a family or a key.
	KeyID uuid.UUID `json:"key,omitzero"`
}

// UserID returns the subject as a UUID, or uuid.Nil when it is not one.
// Claims returned by [Tokens.Parse] always hold a valid user id.
func (c *Claims) UserID() uuid.UUID {
	id, err := uuid.Parse(c.Subject)
	if err != nil {
		return uuid.Nil
	}
	return id
}

// Tokens issues and verifies HS256-signed JWTs with one secret. It is safe
// for concurrent use.
type Tokens struct {
	secret []byte
	opts   TokenOptions
	parser *jwt.Parser
}

// NewTokens returns a token service signing with secret (the JWT_SECRET, any
// non-empty value). Zero options take the defaults; negative lifetimes are
// an error.
func NewTokens(secret []byte, opts TokenOptions) (*Tokens, error) {
	if len(secret) == 0 {
		return nil, errors.New("auth: token secret is empty")
	}
	if opts.AccessTTL < 0 || opts.RefreshTTL < 0 || opts.WSTTL < 0 {
		return nil, errors.New("auth: token lifetimes must not be negative")
	}
	if opts.AccessTTL == 0 {
		opts.AccessTTL = DefaultAccessTTL
	}
	if opts.RefreshTTL == 0 {
		opts.RefreshTTL = DefaultRefreshTTL
	}
	if opts.WSTTL == 0 {
		opts.WSTTL = DefaultWSTTL
	}
	if opts.Issuer == "" {
		opts.Issuer = DefaultIssuer
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	t := &Tokens{secret: append([]byte(nil), secret...), opts: opts}
	t.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{signingMethod.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(opts.Issuer),
		jwt.WithTimeFunc(opts.Now),
		// Strict base64 so that each token has exactly one accepted
		// spelling (no malleable trailing bits in the signature).
		jwt.WithStrictDecoding(),
	)
	return t, nil
}

// TTL returns the configured lifetime of tokens of type typ, or 0 for an
// unknown type. Handlers use it for cookie lifetimes and "expires_in".
func (t *Tokens) TTL(typ TokenType) time.Duration {
	switch typ {
	case TokenAccess:
		return t.opts.AccessTTL
	case TokenRefresh:
		return t.opts.RefreshTTL
	case TokenWS:
		return t.opts.WSTTL
	}
	return 0
}

// IssueAccess returns an access token for userID scoped to orgID in the
// session familyID, and its expiry. All ids must be non-nil.
func (t *Tokens) IssueAccess(userID, orgID, familyID uuid.UUID) (token string, exp time.Time, err error) {
	if familyID == uuid.Nil {
		return "", time.Time{}, errors.New("auth: access token family id is nil")
	}
	token, c, err := t.issue(TokenAccess, userID, orgID, familyID, uuid.Nil)
	if err != nil {
		return "", time.Time{}, err
	}
	return token, c.ExpiresAt.Time, nil
}

// IssueRefresh returns a refresh token in familyID and its claims; the
// caller stores claims.ID (the jti) to detect reuse and to revoke it. All
// ids must be non-nil.
func (t *Tokens) IssueRefresh(userID, orgID, familyID uuid.UUID) (token string, claims Claims, err error) {
	if familyID == uuid.Nil {
		return "", Claims{}, errors.New("auth: refresh token family id is nil")
	}
	return t.issue(TokenRefresh, userID, orgID, familyID, uuid.Nil)
}

// IssueWS returns a short-lived WebSocket token and its claims for the
// credential it is issued to: a session (familyID) or an API key (keyID),
// exactly one of them. The socket handler marks claims.ID used (see
// [UsedTokens]) so the token works once.
func (t *Tokens) IssueWS(userID, orgID, familyID, keyID uuid.UUID) (string, Claims, error) {
	if (familyID == uuid.Nil) == (keyID == uuid.Nil) {
		return "", Claims{}, errors.New("auth: a WebSocket token needs a session family or an API key, not both")
	}
	return t.issue(TokenWS, userID, orgID, familyID, keyID)
}

func (t *Tokens) issue(typ TokenType, userID, orgID, familyID, keyID uuid.UUID) (string, Claims, error) {
	if userID == uuid.Nil {
		return "", Claims{}, errors.New("auth: user id is nil")
	}
	if orgID == uuid.Nil {
		return "", Claims{}, errors.New("auth: organization id is nil")
	}
	jti, err := uuid.NewRandom()
	if err != nil {
		return "", Claims{}, fmt.Errorf("auth: token id: %w", err)
	}
	now := t.opts.Now()
	c := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    t.opts.Issuer,
			Subject:   userID.String(),
			ExpiresAt: jwt.NewNumericDate(now.Add(t.TTL(typ))),
			NotBefore: jwt.NewNumericDate(now),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        jti.String(),
		},
		Type:     typ,
		OrgID:    orgID,
		FamilyID: familyID,
		KeyID:    keyID,
	}
	s, err := jwt.NewWithClaims(signingMethod, c).SignedString(t.secret)
	if err != nil {
		return "", Claims{}, fmt.Errorf("auth: sign token: %w", err)
	}
	return s, c, nil
}

// Parse verifies token and returns its claims when it is a current token of
// type want issued by this service.
//
// It accepts HS256 only (so "none", RS256 and HS512 headers fail), requires
// exp, checks iss, nbf and the signature, and requires well-formed ids.
// Errors wrap [ErrTokenExpired] for a genuine but expired token,
// [ErrWrongTokenType] for a genuine, current token of another type, and
// [ErrTokenInvalid] for everything else.
func (t *Tokens) Parse(token string, want TokenType) (*Claims, error) {
	if err := checkTokenSyntax(token); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokenInvalid, err)
	}
	c := new(Claims)
	_, err := t.parser.ParseWithClaims(token, c, t.key)
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired) && t.wellFormed(c):
		// The library checks claims only after the signature, so an
		// expiry error means the signature was good. Report expiry only
		// for a token that is otherwise one of ours, so a client is not
		// told to refresh a token that would never have worked.
		return nil, fmt.Errorf("%w: %v", ErrTokenExpired, err)
	default:
		return nil, fmt.Errorf("%w: %v", ErrTokenInvalid, err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokenInvalid, err)
	}
	if c.Type != want {
		return nil, fmt.Errorf("%w: got %q, want %q", ErrWrongTokenType, c.Type, want)
	}
	return c, nil
}

func (t *Tokens) key(*jwt.Token) (any, error) { return t.secret, nil }

// maxTokenLen bounds the input Parse decodes; issued tokens are about 400
// bytes.
const maxTokenLen = 4096

// checkTokenSyntax allows only the base64url alphabet and dots. The base64
// decoder skips CR and LF, so without this a token with line breaks added
// would verify as the original.
func checkTokenSyntax(token string) error {
	if len(token) > maxTokenLen {
		return errors.New("token too long")
	}
	for i := 0; i < len(token); i++ {
		switch c := token[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return fmt.Errorf("unexpected character at offset %d", i)
		}
	}
	return nil
}

// wellFormed reports whether expired claims would otherwise have passed.
func (t *Tokens) wellFormed(c *Claims) bool {
	return c.Issuer == t.opts.Issuer && c.check() == nil
}

// check enforces what Issue* guarantees beyond the registered claims.
func (c *Claims) check() error {
	switch c.Type {
	case TokenAccess, TokenRefresh, TokenWS:
	default:
		return fmt.Errorf("unknown token type %q", c.Type)
	}
	if id, err := uuid.Parse(c.Subject); err != nil || id == uuid.Nil || id.String() != c.Subject {
		return errors.New("subject is not a user id")
	}
	if id, err := uuid.Parse(c.ID); err != nil || id.String() != c.ID {
		return errors.New("token id is not a uuid")
	}
	if c.OrgID == uuid.Nil {
		return errors.New("organization id missing")
	}
	switch {
	case c.Type != TokenWS && (c.FamilyID == uuid.Nil || c.KeyID != uuid.Nil):
		return errors.New("access and refresh tokens carry a family id and no key id")
	case c.Type == TokenWS && (c.FamilyID == uuid.Nil) == (c.KeyID == uuid.Nil):
		return errors.New("a WebSocket token carries a family id or a key id")
	}
	if c.IssuedAt == nil {
		return errors.New("issued-at missing")
	}
	return nil
}

// CSRF returns the CSRF token of the session family: an HMAC of the family
// under the token secret. It is bound to the session, so a cookie and
// header pair that someone else planted does not pass, and it stays the
// same across refreshes of the session.
func (t *Tokens) CSRF(family uuid.UUID) string {
	mac := hmac.New(sha256.New, t.secret)
	mac.Write([]byte("csrf:"))
	mac.Write(family[:])
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// CheckCSRF reports whether a cookie-authenticated request of the session
// family carries its CSRF token in both the cookie and the header.
func (t *Tokens) CheckCSRF(family uuid.UUID, cookie, header string) bool {
	return family != uuid.Nil && CSRFMatch(cookie, header) && ConstantTimeEqual(header, t.CSRF(family))
}

// SessionFamily returns the session family of a genuine access or refresh
// token of this service, expired or not (uuid.Nil otherwise): logging out
// a session whose access token has just expired still needs its CSRF
// token, which is derived from the family.
func (t *Tokens) SessionFamily(token string) uuid.UUID {
	for _, typ := range []TokenType{TokenAccess, TokenRefresh} {
		c, err := t.Parse(token, typ)
		if errors.Is(err, ErrTokenExpired) {
			// Parse reports expiry only for a token with a good
			// signature and well-formed claims; read them unchecked.
			c = new(Claims)
			if _, _, perr := jwt.NewParser().ParseUnverified(token, c); perr != nil || c.Type != typ {
				continue
			}
			err = nil
		}
		if err == nil {
			return c.FamilyID
		}
	}
	return uuid.Nil
}
