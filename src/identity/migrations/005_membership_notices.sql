-- Who pays a fee depends on a user's memberships (billing's payer rule, src/billing/fees.ts), which each
-- gateway process keeps in memory (src/billing/store/payer-cache.ts). Every change to a membership
-- sends the user's id on `rsg_memberships`, and every change to organisations (or a TRUNCATE of either
-- table) sends `*`: PostgreSQL delivers the notice at commit to every listening process (never for a change
-- that rolled back), whoever made the change (the portal, `rsg`, another process, a test).
CREATE FUNCTION identity_membership_notice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'memberships' AND TG_LEVEL = 'ROW' THEN
    IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('rsg_memberships', OLD.user_id::text); END IF;
    IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('rsg_memberships', NEW.user_id::text); END IF;
  ELSE
    PERFORM pg_notify('rsg_memberships', '*');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER memberships_notice AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION identity_membership_notice();
CREATE TRIGGER memberships_truncate_notice AFTER TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION identity_membership_notice();
-- A new organisation has no members yet (its first membership sends its own notice).
CREATE TRIGGER organisations_notice AFTER UPDATE OR DELETE OR TRUNCATE ON organisations
  FOR EACH STATEMENT EXECUTE FUNCTION identity_membership_notice();
