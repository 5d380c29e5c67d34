-- Work that reads the current state (re-reading a website at the provider) needs to run once
-- however often it is asked for while it waits: at most one pending job holds a pending_key.
-- A flood of callbacks for one website then queues one re-read, not one each.
ALTER TABLE jobs ADD COLUMN pending_key TEXT;
CREATE INDEX jobs_pending_key ON jobs (pending_key) WHERE state = 'pending' AND pending_key IS NOT NULL;
