-- The reseller scope (issue 22): a pooled hit limit over every website of every account a
-- reseller owns (accounts.reseller). Its row keeps the pool in account_hits, the column that
-- already means "hits all the subject's websites may have together" (an account's websites
-- for scope 'account', a reseller's customers' websites for scope 'reseller'), with the pool's
-- own period, anchor day and warning threshold; website_hits, domain_limit and exempt stay
-- NULL there (the reseller row is not a layer of an account's limits: docs/statistics-and-limits.md).
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt, its rows kept.
CREATE TABLE limits_new (
  scope TEXT NOT NULL CHECK (scope IN ('global', 'plan', 'account', 'website', 'reseller')),
  subject TEXT NOT NULL,
  period TEXT CHECK (period IN ('monthly', 'daily')),
  anchor_day INTEGER CHECK (anchor_day BETWEEN 1 AND 28),
  website_hits INTEGER CHECK (website_hits >= 0),
  account_hits INTEGER CHECK (account_hits >= 0),
  domain_limit INTEGER CHECK (domain_limit >= 0),
  warning_percent INTEGER CHECK (warning_percent BETWEEN 1 AND 100),
  exempt INTEGER CHECK (exempt IN (0, 1)),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (scope, subject)
) WITHOUT ROWID;
INSERT INTO limits_new (scope, subject, period, anchor_day, website_hits, account_hits, domain_limit, warning_percent, exempt, updated_at)
  SELECT scope, subject, period, anchor_day, website_hits, account_hits, domain_limit, warning_percent, exempt, updated_at
  FROM limits;
DROP TABLE limits;
ALTER TABLE limits_new RENAME TO limits;
