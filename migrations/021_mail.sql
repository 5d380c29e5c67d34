-- E-mail to the right people (issue 22): customers, their resellers (a digest) and the admin
-- (a daily digest), sent by `email.send` jobs through WPP_SMTP_URL.

-- The language a customer's mails are written in: the language of the customer's last launch
-- of the pages (the panel's tag as the launch token gave it, resolved when a mail is written).
-- Null: the customer never opened the pages with a language; mails are in English.
ALTER TABLE accounts ADD COLUMN locale TEXT CHECK (locale IS NULL OR length(locale) <= 35);

-- Kept by the database itself, so every way a session starts records it.
CREATE TRIGGER sessions_customer_locale AFTER INSERT ON sessions
WHEN NEW.role = 'customer' AND NEW.locale IS NOT NULL
BEGIN
  UPDATE accounts SET locale = NEW.locale WHERE account = NEW.subject;
END;

-- The admin digest's language: the last admin launch's (kv, beside the plugin's other facts).
CREATE TRIGGER sessions_admin_locale AFTER INSERT ON sessions
WHEN NEW.role = 'admin' AND NEW.locale IS NOT NULL
BEGIN
  INSERT INTO kv (key, value, updated_at) VALUES ('mail.admin_locale', NEW.locale, NEW.created_at)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at;
END;

-- Every mail queued: the cooldown (one kind to one recipient about one subject, a website or
-- a digest's day, not again within the cooldown) reads it. `sent_at` is set when SMTP took it.
CREATE TABLE mail_log (
  id INTEGER PRIMARY KEY,
  recipient TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject_key TEXT NOT NULL,
  queued_at INTEGER NOT NULL,
  sent_at INTEGER
);
CREATE INDEX mail_log_cooldown ON mail_log (recipient, kind, subject_key, queued_at);

-- What happened to a reseller's customers since the reseller's last digest: one mail per
-- reseller per day gathers them. `digested_at` is set when the digest that carries it is queued.
CREATE TABLE mail_digest_events (
  id INTEGER PRIMARY KEY,
  reseller TEXT NOT NULL,
  account TEXT NOT NULL,
  domain TEXT,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL,
  digested_at INTEGER
);
CREATE INDEX mail_digest_events_waiting ON mail_digest_events (reseller, at) WHERE digested_at IS NULL;
