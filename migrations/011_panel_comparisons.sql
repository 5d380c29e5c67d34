-- Every comparison of the panel's accounts and domains with the plugin's and the provider's
-- (`wpp import`, and the scheduled drift check): when, from where, what was counted, the
-- first differences (the whole list can be thousands long; the counts are complete), and how
-- many events an --apply queued. The admin pages show the latest.
CREATE TABLE panel_comparisons (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  panel TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('cli', 'schedule')),
  listed_accounts INTEGER NOT NULL,
  listed_domains INTEGER NOT NULL,
  listed_subdomains INTEGER NOT NULL,
  provider_checked INTEGER NOT NULL,
  -- {kind: count} over every difference.
  counts TEXT NOT NULL,
  total_differences INTEGER NOT NULL,
  -- JSON array of the first differences (core/import-diff.ts Difference).
  differences TEXT NOT NULL,
  -- Events queued by --apply; NULL when the comparison only reported.
  applied INTEGER
);
CREATE INDEX panel_comparisons_at ON panel_comparisons (at);
