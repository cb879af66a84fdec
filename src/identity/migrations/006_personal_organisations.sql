-- A user's personal sandbox organisation (the payer of their sandbox fees when they belong to no other)
-- is tied to that user by `personal_of`, not found by its identifier. Its identifier was once derived
-- from the user's id (`sandbox-` and the id's first 12 hex digits), which anyone who knew the id (the
-- `sub` of a token) could create first in the portal and then be joined by the victim as a co-owner.
-- Personal organisations are now made with a random identifier, found by `personal_of` only, and only
-- their own user is ever added to one by the system.
ALTER TABLE organisations ADD COLUMN personal_of uuid UNIQUE REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE organisations ADD CONSTRAINT organisations_personal_in_sandbox
  CHECK (personal_of IS NULL OR environment = 'sandbox');

-- Organisations made the old way whose only member is the user they were derived from are that user's
-- personal organisation. One with other members too (shared on purpose, or squatted) stays an ordinary
-- organisation: its user gets a new personal one when they next need it and belong to no other.
UPDATE organisations o SET personal_of = u.id
  FROM users u
 WHERE o.environment = 'sandbox'
   AND o.identifier = 'sandbox-' || left(replace(u.id::text, '-', ''), 12)
   AND EXISTS (SELECT 1 FROM memberships m WHERE m.organisation_id = o.id AND m.user_id = u.id AND m.role = 'owner')
   AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.organisation_id = o.id AND m.user_id <> u.id);
