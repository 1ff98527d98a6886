// The one error type of mem: a message for the user, an exit code and an optional hint.
// Domain modules throw it; the CLI prints `mem: <message>` (+ `hint: …`) and exits.

export const EXIT_OK = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;

export interface Where {
  file?: string;
  line?: number;
}

export class MemError extends Error {
  readonly exitCode: number;
  readonly hint?: string;
  readonly where?: Where;

  constructor(message: string, opts: { exitCode?: number; hint?: string; where?: Where; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'MemError';
    this.exitCode = opts.exitCode ?? EXIT_FAIL;
    this.hint = opts.hint;
    this.where = opts.where;
  }
}

export function usageError(message: string, hint?: string): MemError {
  return new MemError(message, { exitCode: EXIT_USAGE, hint });
}

/** `message (file:line)`: the one-line form used by errors and warnings alike. */
export function formatWhere(message: string, where?: Where): string {
  if (!where?.file) return message;
  return `${message} (${where.file}${where.line ? `:${where.line}` : ''})`;
}

/** A problem found while reading the vault that does not stop the command. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  message: string;
  file: string;
  line?: number;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`;
}
