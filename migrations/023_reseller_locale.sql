-- The reseller digest's language (issue 22): the language of the reseller's last launch of the
-- reseller pages, kept by the database as 021 keeps the customers' and the admin's. Only a
-- reseller the panel has named gets one (no row is made for a sign-in alone). Null: the
-- reseller never opened the pages with a language; the digest falls back to the language of
-- an account of the same name (cPanel resellers are accounts too), else English.
ALTER TABLE resellers ADD COLUMN locale TEXT CHECK (locale IS NULL OR length(locale) <= 35);

CREATE TRIGGER sessions_reseller_locale AFTER INSERT ON sessions
WHEN NEW.role = 'reseller' AND NEW.locale IS NOT NULL
BEGIN
  UPDATE resellers SET locale = NEW.locale WHERE name = NEW.subject;
END;
