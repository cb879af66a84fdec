-- Every message the gateway sends, kept whether or not SMTP is configured: operators read it in the
-- portal, and `sent_at` / `error` tell what the SMTP server said.
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  "to" text NOT NULL,
  subject text NOT NULL,
  text text NOT NULL,
  html text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  error text
);
CREATE INDEX mail_outbox_created ON mail_outbox (created_at DESC);
