-- Certificate issuance no longer hides the requested status: a website whose DNS is verified
-- shows its requested status at once, and issuance is reported in `certificate_status`
-- (derived from settings, dns_verified_at and cert_ready_at, so no column is needed).
-- Websites stored while issuing under the old rule take the status they now have.
UPDATE websites SET status = requested_status
WHERE status = 'issuing_certificate' AND dns_verified_at IS NOT NULL;
