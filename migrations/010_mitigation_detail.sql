-- The mitigation breakdown of a website's newest statistics read (issue 9, the domain page):
-- how many requests were challenged with a captcha and how many denied, and by visitor
-- category, as JSON {"captcha": N, "deny": N, "byCategory": {"humans": N, ...}}. Cumulative
-- like the counters beside it; NULL when the provider sent only a total.
ALTER TABLE stats_latest ADD COLUMN mitigated_detail TEXT;
