-- Job kinds are named <subject>.<verb> (src/core/job-kinds.ts). The two older names are
-- renamed in every row, done ones included, so the history reads with the same names and a
-- job queued before the upgrade still finds its handler.
UPDATE jobs SET kind = 'panel.event' WHERE kind = 'panel_event';
UPDATE jobs SET kind = 'notification.send' WHERE kind = 'notify';
