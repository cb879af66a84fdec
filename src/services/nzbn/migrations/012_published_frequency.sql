-- The published name of the frequency that notifies on each change (Frequency: ONEVENT, DAILY, WEEKLY):
-- watchlists stored with our earlier name IMMEDIATE take it. IMMEDIATE is still read in requests.
UPDATE nzbn_watchlists SET frequency = 'ONEVENT' WHERE frequency = 'IMMEDIATE';
