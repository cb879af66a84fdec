-- The environment a message was sent from, when it was (a register's job or operation in the sandbox or
-- production); NULL for the gateway's own mail (sign-up, approvals, the portal). A sandbox reset puts the
-- sandbox's messages back as they were (platform/sandbox/), and leaves every other message alone.
ALTER TABLE mail_outbox
  ADD COLUMN environment text CHECK (environment IN ('sandbox', 'production'));
CREATE INDEX mail_outbox_environment ON mail_outbox (environment) WHERE environment IS NOT NULL;
