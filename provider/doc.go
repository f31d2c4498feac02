// Package provider is the one typed client of the WhatsApp Cloud API (Meta's
// Graph API): sending messages and read receipts, media upload and download,
// phone number status, webhook subscription and the business profile.
//
// Every call goes to {BaseURL}/{api_version}/... exactly as Meta documents it,
// authenticated with the account's access token, with a per-attempt timeout,
// bounded retries with backoff, and Graph errors mapped to *Error.
//
// Retries: reads (GET) are retried on HTTP 429, 5xx, throttling error codes
// and network failures. Message sends and other writes have no idempotency
// key at Meta, so they are retried only when the answer shows the request was
// refused before doing work (5xx or a throttling/transient code, see
// Error.Temporary), or when the connection could not even be opened; a
// connection lost after the request was written is not retried, because the
// message may have gone out. Retry-After is honoured up to MaxRetryAfter, and
// every wait ends early when the context is done. IsRetryable tells callers
// (the worker queue) whether a failed call is worth scheduling again.
//
// The package owns the wire format and nothing else: it holds no state about
// accounts, messages or tenants, never reads the database, and never imports
// graph/, rest/ or ent/. Access tokens are never logged nor put in URLs.
//
// Package providertest holds a reusable fake of the Graph API for tests.
package provider
