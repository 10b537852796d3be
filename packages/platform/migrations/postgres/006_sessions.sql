-- Portico schema 6: dashboard sessions (services/sessions.ts). A session is opened with a user
-- token, the admin token or a one-time sign-in code, and lives in an HttpOnly cookie; only the
-- SHA-256 of its secret is stored. It stands for the credential it was opened with: a user
-- session ends when that user token is revoked, an operator session when the admin token changes.
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  -- 'admin' or 'user'
  kind TEXT NOT NULL,
  -- The SHA-256 of the token the session was opened with (the admin token's for the operator).
  token_hash TEXT NOT NULL,
  -- Sent back by the dashboard in X-CSRF-Token on every request that changes something.
  csrf_token TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- One-time sign-in codes for the operator (printed by `portico serve` on first start).
CREATE TABLE sign_in_codes (
  code_hash TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
