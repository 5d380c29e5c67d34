/**
 * The fleet database's URL as it may be shown: WPP_FLEET_DATABASE_URL holds the password, which
 * no log line, error or page repeats.
 */

/** The URL with its password replaced: postgres://wpp:[redacted]@db.host.example:5432/fleet. */
export function describeFleetUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (url.password) url.password = '[redacted]';
  // URL encodes the brackets in the password; shown as written, they read as what they are.
  return url.toString().replace('%5Bredacted%5D', '[redacted]');
}

/** `text` (a driver's error message) with the URL's password taken out, however it was written. */
export function withoutFleetPassword(text: string, databaseUrl: string): string {
  const raw = new URL(databaseUrl).password;
  const secrets = [...new Set([raw, decoded(raw)])].filter((secret) => secret.length > 0);
  return secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}

/** The password as the driver reads it; a stray `%` that is no escape is kept as written. */
function decoded(password: string): string {
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}
