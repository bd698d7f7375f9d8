-- The skill registry's index (docs/registry.md): one row per published
-- bundle, keyed by its content hash. The bundle's bytes are in the R2
-- bucket under the same key; nothing here is ever deleted, and a
-- withdrawal only fills withdrawn_at and keeps the signed withdrawal.
CREATE TABLE bundles (
  content_hash      TEXT PRIMARY KEY NOT NULL,
  skill_id          TEXT NOT NULL,
  slug              TEXT NOT NULL,
  version           INTEGER NOT NULL,
  name              TEXT NOT NULL,
  description       TEXT NOT NULL,
  signer_key_id     TEXT NOT NULL,
  signer_public_key TEXT NOT NULL,
  verdict           TEXT NOT NULL,
  redaction_profile TEXT NOT NULL,
  size              INTEGER NOT NULL,
  published_at      TEXT NOT NULL,
  withdrawn_at      TEXT,
  withdrawal        TEXT
) STRICT;

-- The listing's order, newest first, and the same per signer.
CREATE INDEX bundles_by_time ON bundles (published_at DESC, content_hash DESC);
CREATE INDEX bundles_by_signer ON bundles (signer_key_id, published_at DESC, content_hash DESC);
