-- Every domain is visible from the moment the panel sends it (issue 21). A domain.added's
-- website row is written before the provider is asked, so the customer and the admin see it
-- while it is set up, and still see it when the provider refuses it.

-- When the provider first accepted the website; NULL: not yet (being set up, or refused).
-- Only provisioning's row written ahead of the provider is NULL: any other row is written
-- after the provider accepted the website (0 by default: accepted, time not recorded), and
-- every website stored before this migration was, when it was created.
ALTER TABLE websites ADD COLUMN provisioned_at INTEGER DEFAULT 0;
UPDATE websites SET provisioned_at = created_at;

-- The provider's refusal of a website not yet provisioned, kept for the pages until a retry:
-- its stable code (the provider's, e.g. domain_unresolvable, or the plugin's, e.g.
-- LIMIT_REACHED), its reason in the provider's words, and when. provider_status is 'error'
-- meanwhile, so the overview counts it "in error" and the admin's state filter finds it.
ALTER TABLE websites ADD COLUMN provisioning_error_code TEXT;
ALTER TABLE websites ADD COLUMN provisioning_error TEXT;
ALTER TABLE websites ADD COLUMN provisioning_failed_at INTEGER;
