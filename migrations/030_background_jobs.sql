-- Background jobs (issue 23, docs/fleet.md "One budget per server"): a job knows how it was
-- made. An import's panel events (`wpp import --apply`) and bulk protect's website.protect jobs
-- are background work: the worker claims every due job of the panel's own (a new domain) before
-- them, and their provider calls take background tokens of the request budget. 0 for every
-- job queued before: they run as they always did.
ALTER TABLE jobs ADD COLUMN background INTEGER NOT NULL DEFAULT 0 CHECK (background IN (0, 1));

-- The claim's order: the panel's own due jobs first, then background ones, each by run_at.
CREATE INDEX jobs_due_by_priority ON jobs (state, background, run_at);
