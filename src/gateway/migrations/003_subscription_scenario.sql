-- A fault scenario set on a sandbox subscription, for clients that cannot add the Sandbox-Scenario
-- header: every call with the subscription's keys meets it (a call's own header comes first). Stored in
-- its canonical form (`throttled=30`, `drop`); NULL when none. Only sandbox subscriptions may have one
-- (checked by the operation that sets it, which knows the product's environment).
ALTER TABLE subscriptions
  ADD COLUMN sandbox_scenario text CHECK (sandbox_scenario ~ '^[a-z]+(=[0-9]{1,6})?$');
