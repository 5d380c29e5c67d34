-- Resellers (issue 22): WHM, Plesk, DirectAdmin and Virtualmin resellers manage customers of their
-- own. Which reseller an account belongs to comes from the panel (its events and its listings) and
-- follows transfers between resellers; null: the host's own customer (created by the admin, root).
ALTER TABLE accounts ADD COLUMN reseller TEXT CHECK (reseller IS NULL OR length(reseller) BETWEEN 1 AND 255);
CREATE INDEX accounts_reseller ON accounts (reseller) WHERE reseller IS NOT NULL;

-- The resellers the panel has named, with the e-mail address it gives them (their digests).
-- A reseller is known from the first account or listing that names it; removing it from the
-- panel leaves the row (its accounts' history still names it).
CREATE TABLE resellers (
  name TEXT PRIMARY KEY,
  email TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
