-- The pages in the panel user's language (issue 21): the launch token may carry the language
-- tag the panel knows for its user (de, de-AT, es); the session keeps it as given, and every
-- page request resolves it to a language the plugin has (src/core/locale.ts). Null: the panel
-- gave none, the pages are in English.
ALTER TABLE sessions ADD COLUMN locale TEXT CHECK (locale IS NULL OR length(locale) <= 35);
