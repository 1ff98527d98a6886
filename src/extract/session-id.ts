// Session ids that come from outside (a transcript, a hook payload) made safe before mem uses
// them: they name folders (.mem/sessions/<id>/, .mem/jobs/<id>/), ledger records and YAML values.

import { createHash } from 'node:crypto';
import { SESSION_ID } from '../vault/sessions.js';

export { checkSessionId, printable } from '../vault/sessions.js';

/**
 * A session id read from a transcript or a hook, as mem can use it: as it is when it is valid;
 * else its safe characters plus a hash of the whole, so that two different bad ids stay apart
 * and the same one maps to the same name on every run. Undefined when there is none.
 */
export function usableSessionId(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (SESSION_ID.test(raw)) return raw;
  const hash = createHash('sha1').update(raw).digest('hex').slice(0, 12);
  const safe = raw.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 96).replace(/[-.]+$/, '');
  return safe === '' ? `session-${hash}` : `${safe}-${hash}`;
}
