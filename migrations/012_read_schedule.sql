-- The adaptive statistics sync (core/read-schedule.ts, core/read-tick.ts): when each website
-- is read next and what its reads taught, the forecasts shown on the pages, and the notices
-- of attack spikes.

-- One row per website. next_read_at orders the reads: the earliest first, a few thousand per
-- minute at most. A website not active (removed) is parked far in the future, so the due
-- list is read from the index alone. Rates are per second and smoothed (read-schedule.ts).
CREATE TABLE read_schedule (
  domain TEXT PRIMARY KEY,
  account TEXT NOT NULL,
  next_read_at INTEGER NOT NULL,
  last_read_at INTEGER,
  -- Hits per second, smoothed over about half an hour; NULL before two reads gave one.
  hit_rate REAL,
  -- Blocked hits per second: smoothed over about the last hour, and the day-long baseline.
  blocked_recent REAL,
  blocked_baseline REAL,
  -- When the current attack spike began (a notice was recorded then); NULL: none.
  spike_since INTEGER,
  -- When the website's own limit will be reached at the current rate, NULL: not this period
  -- (or no limit); written with each read.
  limit_reached_at INTEGER,
  -- The account's current period, as of the last read: the forecast is about that period.
  period_end INTEGER
) WITHOUT ROWID;
CREATE INDEX read_schedule_due ON read_schedule (next_read_at);
CREATE INDEX read_schedule_account ON read_schedule (account);

-- Websites already read are due in the order they were last read, so the first minutes after
-- the upgrade read the oldest first; those never read come first of all.
INSERT INTO read_schedule (domain, account, next_read_at, last_read_at)
  SELECT w.domain, w.account,
    CASE WHEN w.state = 'active' THEN COALESCE(l.taken_at, 0) ELSE 9007199254740991 END,
    CASE WHEN l.taken_at > 0 THEN l.taken_at END
  FROM websites w LEFT JOIN stats_latest l ON l.domain = w.domain;

CREATE TRIGGER websites_schedule_inserted AFTER INSERT ON websites
BEGIN
  INSERT OR IGNORE INTO read_schedule (domain, account, next_read_at)
  VALUES (NEW.domain, NEW.account, CASE WHEN NEW.state = 'active' THEN 0 ELSE 9007199254740991 END);
END;

CREATE TRIGGER websites_schedule_account_changed AFTER UPDATE OF account ON websites
WHEN OLD.account IS NOT NEW.account
BEGIN
  UPDATE read_schedule SET account = NEW.account WHERE domain = NEW.domain;
END;

-- A removed website is not read; one protected again is read at once.
CREATE TRIGGER websites_schedule_state_changed AFTER UPDATE OF state ON websites
WHEN OLD.state IS NOT NEW.state
BEGIN
  UPDATE read_schedule SET next_read_at = CASE WHEN NEW.state = 'active' THEN 0 ELSE 9007199254740991 END,
    hit_rate = CASE WHEN NEW.state = 'active' THEN hit_rate END
  WHERE domain = NEW.domain;
END;

-- Per account: when its aggregate limit will be reached at the sum of its websites' rates,
-- written each time one of its websites is read. NULL: not this period (or no limit).
CREATE TABLE account_forecast (
  account TEXT PRIMARY KEY,
  hit_rate REAL NOT NULL,
  limit_reached_at INTEGER,
  period_end INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Notices about a website for its pages and the notification URL: today an attack spike
-- (blocked hits in the last hour far above the website's normal), one row per spike.
CREATE TABLE website_notices (
  id INTEGER PRIMARY KEY,
  domain TEXT NOT NULL,
  account TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('attack_spike')),
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  -- Blocked hits per hour when the spike was noticed, and the website's normal.
  blocked_per_hour INTEGER NOT NULL,
  baseline_per_hour INTEGER NOT NULL,
  UNIQUE (domain, kind, started_at)
);
CREATE INDEX website_notices_domain ON website_notices (domain, started_at);
