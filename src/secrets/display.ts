// What mem shows or logs of text it did not write itself (a server's error body, an exception, a
// URL): no URL's user name or password, the credentials mem knows (its API keys) and those the
// display rules find (authorization headers, vendor tokens) replaced by placeholders.

import { redactForDisplay, urlForDisplay } from './rules.js';

/** `text` as it may be printed or logged (`known`: values mem holds that are credentials). */
export function displaySafe(text: string, known: Iterable<string | undefined> = []): string {
  return redactForDisplay(urlForDisplay(text), known);
}

// Names that say a variable holds a credential: OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD, …
const CREDENTIAL_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH)(_|$)|APIKEY|SECRET|TOKEN|PASSWORD/i;

/** The API keys mem itself is given (its model and embeddings providers'): credentials whatever their shape. */
export function apiKeysIn(env: Record<string, string | undefined>): string[] {
  return [env.ANTHROPIC_API_KEY, env.OPENAI_API_KEY, env.MEM_EMBED_API_KEY].filter((v): v is string => Boolean(v));
}

/**
 * The values of the variables in `env` whose names say they hold a credential (the API keys mem
 * is given, and any other), for the last redaction before a line is printed or logged. Short
 * values and paths (SSH_AUTH_SOCK) are left out: they would blank ordinary words.
 */
export function credentialsIn(env: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8 || !CREDENTIAL_NAME.test(name)) continue;
    if (/^(\/|~\/|[A-Za-z]:\\)/.test(value) || /^(true|false|\d+)$/i.test(value)) continue;
    out.push(value);
  }
  return out;
}
