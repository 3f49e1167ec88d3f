/** Names whose values are secrets wherever they appear as NAME=value. */
const SECRET_NAMES = ['POSTGRES_PASSWORD', 'SERVICE_ADMIN_PASSWORD', 'PGPASSWORD', 'LICENSE_TRUSTED_KEYS'];

/**
 * Removes secrets from a line before it reaches the screen or the log: passwords in URLs
 * (`postgres://user:secret@host`), `NAME=value` for the secret settings, and API keys.
 */
export function redact(line: string): string {
  let text = line.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:)[^@\s]+@/gi, '$1***@');
  for (const name of SECRET_NAMES) text = text.replace(new RegExp(`(${name}=)("[^"]*"|'[^']*'|\\S+)`, 'g'), '$1***');
  return text.replace(/service_sk_[A-Za-z0-9]+/g, 'service_sk_***');
}
