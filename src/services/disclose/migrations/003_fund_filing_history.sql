-- A fund's own filing history (`/fund/{n}/filing-history`): the entries of its scheme's (or its offer's)
-- history that name it, newest first.
CREATE INDEX disclose_filing_history_fund ON disclose_filing_history (fund_number, filed_at DESC, id DESC)
  WHERE fund_number IS NOT NULL;
