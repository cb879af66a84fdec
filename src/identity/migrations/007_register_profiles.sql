-- The business number register's view of identity (its users, organisations, organisation users and
-- business authorities) is identity's own rows, not a copy: what the register publishes beyond what
-- identity kept is added here as the user's and the organisation's register profile.

-- A user's register profile: names, addresses and phones as the register publishes them (Address and
-- Phone as JSON objects), whether they accepted the register's terms, and the register status.
ALTER TABLE users
  ADD COLUMN first_name text,
  ADD COLUMN middle_names text,
  ADD COLUMN last_name text,
  ADD COLUMN postal_address jsonb,
  ADD COLUMN physical_address jsonb,
  ADD COLUMN phone jsonb,
  ADD COLUMN fax jsonb,
  ADD COLUMN mobile jsonb,
  ADD COLUMN accept_terms boolean NOT NULL DEFAULT false,
  ADD COLUMN register_status text NOT NULL DEFAULT 'ACTIVE' CHECK (register_status IN ('ACTIVE', 'INACTIVE')),
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE users SET updated_at = created_at;

-- An organisation's register profile.
ALTER TABLE organisations
  ADD COLUMN postal_address jsonb,
  ADD COLUMN physical_address jsonb,
  ADD COLUMN phone jsonb,
  ADD COLUMN fax jsonb,
  ADD COLUMN mobile jsonb,
  ADD COLUMN email text,
  ADD COLUMN category_code text,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE organisations SET updated_at = created_at;

-- A membership is the register's organisation user: it gets an identifier of its own (the invitation's
-- that made it, when one did), a phone, and a modification time.
ALTER TABLE memberships
  ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN phone jsonb,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE memberships SET updated_at = created_at;
CREATE UNIQUE INDEX memberships_id ON memberships (id);

-- Nobody joins an organisation they were not invited to: an administrator invites an email address, the
-- invitation's activation code goes to that address by mail (only its SHA-256 is kept), and the user
-- signed in with that address activates it, which makes the membership (with the invitation's id).
CREATE TABLE membership_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organisation_id uuid NOT NULL REFERENCES organisations (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  first_name text,
  middle_names text,
  last_name text,
  phone jsonb,
  code_hash text NOT NULL UNIQUE,
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  ended_at timestamptz
);
CREATE UNIQUE INDEX membership_invitations_open ON membership_invitations (organisation_id, lower(email))
  WHERE accepted_at IS NULL AND ended_at IS NULL;

-- Business authorities as the register publishes them: requested (PENDING) and decided by an operator,
-- or granted at once (ACCEPTED); ended ones keep their status beside `revoked_at`. A user may hold one
-- for an organisation (both set): it ends with their membership.
ALTER TABLE authorities
  ADD COLUMN status text NOT NULL DEFAULT 'ACCEPTED'
    CHECK (status IN ('PENDING', 'ACCEPTED', 'EXPIRED', 'REVOKED', 'SURRENDERED', 'REJECTED', 'REMOVED')),
  ADD COLUMN authority_type text NOT NULL DEFAULT 'DELEGATED' CHECK (authority_type IN ('DELEGATED', 'EXECUTIVE')),
  ADD COLUMN approval_type text
    CHECK (approval_type IN ('REGISTRAR_LETTER', 'REGISTRAR_ID_PROOF', 'USER', 'PROFESSIONAL_AUTHORITY')),
  ADD COLUMN supporting_information jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN documents jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN reason text,
  ADD COLUMN comment text,
  ADD COLUMN decided_by uuid REFERENCES users (id) ON DELETE SET NULL,
  ADD COLUMN decided_at timestamptz,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE authorities SET status = 'REVOKED', updated_at = revoked_at WHERE revoked_at IS NOT NULL;
UPDATE authorities SET updated_at = granted_at WHERE revoked_at IS NULL;
ALTER TABLE authorities ADD CONSTRAINT authorities_current_status
  CHECK ((revoked_at IS NULL) = (status IN ('PENDING', 'ACCEPTED')));
ALTER TABLE authorities DROP CONSTRAINT authorities_check;
ALTER TABLE authorities ADD CONSTRAINT authorities_holder CHECK (user_id IS NOT NULL OR organisation_id IS NOT NULL);
