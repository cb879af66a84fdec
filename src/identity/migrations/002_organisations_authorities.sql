-- Organisations as the registers know them, one set per environment: the register's organisation
-- identifier is what the offers register's x-organisation header names.
CREATE TABLE organisations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  identifier text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment, identifier)
);

CREATE TABLE memberships (
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organisation_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- Authority over one register object (a business number, a fund, a secured-party group …) in one
-- environment, held by a user or by an organisation. Revoked rows stay, for the record.
CREATE TABLE authorities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  service text NOT NULL,
  object_kind text NOT NULL,
  object_id text NOT NULL,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  organisation_id uuid REFERENCES organisations (id) ON DELETE CASCADE,
  role text NOT NULL DEFAULT 'authority',
  granted_by uuid REFERENCES users (id),
  granted_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CHECK ((user_id IS NULL) <> (organisation_id IS NULL))
);
CREATE UNIQUE INDEX authorities_current ON authorities
  (environment, service, object_kind, object_id, COALESCE(user_id, organisation_id)) WHERE revoked_at IS NULL;
CREATE INDEX authorities_object ON authorities (environment, service, object_kind, object_id) WHERE revoked_at IS NULL;
CREATE INDEX authorities_user ON authorities (user_id) WHERE revoked_at IS NULL;
CREATE INDEX authorities_organisation ON authorities (organisation_id) WHERE revoked_at IS NULL;
