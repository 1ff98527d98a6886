// Adding one learning: check the request, pick the scope's file, append the entry under the
// file's lock and index it. `mem add` and the MCP server's `add` tool both come through here.

import path from 'node:path';
import { usageError, type Diagnostic } from '../errors.js';
import { DOMAINS, ENTRY_TYPES } from '../vault/entry.js';
import { DISPATCH_FILE, SCOPES } from '../vault/scope.js';
import { notMemoryFile, TYPED_NOTE_DIRS, type Vault, type VaultFile } from '../vault/vault.js';
import type { RedactionReport } from '../secrets/redact.js';

export interface AddRequest {
  /** The learning, in markdown (a leading `# heading` becomes the title). */
  text: string;
  type?: string;
  domain?: string;
  /** 0 to 1; a string is parsed (as typed on a command line). */
  importance?: number | string;
  phase?: string;
  scope?: string;
  job?: string;
  task?: string;
  institutional?: boolean;
  /** Comma- or line-separated, or already split. */
  tags?: string | string[];
  title?: string;
  /** A memory file to write to instead of the scope's file; relative to `cwd`. */
  file?: string;
  sessionId?: string;
  /** The entry's date (YYYY-MM-DD). */
  date: string;
}

export interface AddResult {
  id: string;
  file: VaultFile;
  /** The entry's line in its file, as indexed (null when the index could not be updated). */
  line: number | null;
  /** Problems the indexer found in the written file. */
  diagnostics: Diagnostic[];
  notes: string[];
  /** The index could not be updated (the entry is written all the same). */
  warning?: string;
  /** Credentials found in the request and written as placeholders. */
  redacted?: RedactionReport;
}

/** How a request field is named in messages: `--phase` on the command line, `phase` in MCP. */
export type FieldName = (field: string) => string;

export const FLAG_NAMES: FieldName = (f) => `--${f}`;

function firstSentence(text: string): string {
  const line = text.trim().split('\n')[0].replace(/^#+\s*/, '').trim();
  const m = /^(.{10,}?[.!?])(\s|$)/.exec(line);
  const s = m ? m[1] : line;
  return s.length > 80 ? `${s.slice(0, 77).trimEnd()}…` : s;
}

/** Tags as given: commas and line breaks both separate them (a tag never holds a line break). */
export function splitTags(tags: string | string[] | undefined): string[] | undefined {
  if (tags === undefined) return undefined;
  const out = (Array.isArray(tags) ? tags : [tags]).flatMap((t) => t.split(/[,\r\n\u0085\u2028\u2029]/)).map((t) => t.trim()).filter(Boolean);
  return out.length > 0 ? out : undefined;
}

export interface CheckedAdd {
  type?: string;
  domain?: string;
  importance?: number;
  phase?: string;
  scope: string;
}

/**
 * The largest learning `mem add` (and MCP's add) takes, in UTF-8 bytes. A learning is a few
 * sentences; a whole log pasted in would be one entry every search reads a part of and every
 * rewrite of its file carries.
 */
export const MAX_ADD_BYTES = 256 * 1024;

/** The request's enumerated fields, lowercased and checked (a usage error names the bad one). */
export function checkAdd(req: Omit<AddRequest, 'date'>, name: FieldName = FLAG_NAMES): CheckedAdd {
  if (req.text.trim() === '') throw usageError('nothing to add', 'give the learning as an argument or on stdin');
  const bytes = Buffer.byteLength(req.text, 'utf8');
  if (bytes > MAX_ADD_BYTES) {
    throw usageError(`the learning is ${Math.ceil(bytes / 1024)} KB; mem add takes at most ${MAX_ADD_BYTES / 1024} KB`, 'keep the lesson and leave the log out (link to it or quote the few lines that matter); nothing was written');
  }
  const type = req.type?.toLowerCase();
  if (type && !(ENTRY_TYPES as readonly string[]).includes(type)) throw usageError(`unknown type "${req.type}"`, `use one of: ${ENTRY_TYPES.join(', ')}`);
  const domain = req.domain?.toLowerCase();
  if (domain && !(DOMAINS as readonly string[]).includes(domain)) throw usageError(`unknown domain "${req.domain}"`, `use one of: ${DOMAINS.join(', ')}`);
  const raw = req.importance;
  const importance = raw === undefined ? undefined : Number(raw);
  if (raw !== undefined && ((typeof raw === 'string' && raw.trim() === '') || !Number.isFinite(importance) || importance! < 0 || importance! > 1)) {
    throw usageError(`${name('importance')} must be a number from 0 to 1 (got "${raw}")`);
  }
  const phase = req.phase?.toLowerCase();
  if (phase !== undefined && !/^[a-z][a-z0-9_-]*$/.test(phase)) throw usageError(`${name('phase')} must be one word (got "${req.phase}")`);
  const scope = (req.scope ?? 'project').toLowerCase();
  if (!(SCOPES as readonly string[]).includes(scope)) throw usageError(`unknown scope "${req.scope}"`, `use one of: ${SCOPES.join(', ')}`);
  return { type, domain, importance, phase, scope };
}

/** The file a request writes to (absolute). */
export function targetFile(vault: Vault, req: Omit<AddRequest, 'date'>, scope: string, cwd: string, name: FieldName = FLAG_NAMES): string {
  const fileName = req.institutional ? 'institutional.md' : 'MEMORY.md';
  const safe = (v: string | undefined, what: string) => {
    if (!v) throw usageError(`${name('scope')} ${scope} needs ${name(what)}`);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v)) throw usageError(`invalid ${name(what)} "${v}"`, 'use letters, digits, ".", "_" and "-"');
    return v;
  };
  let abs: string;
  if (req.file) abs = path.resolve(cwd, req.file);
  else if (scope === 'global') abs = path.join(vault.home, fileName);
  else if (scope === 'project') abs = path.join(vault.root, fileName);
  else if (scope === 'dispatch') {
    // One file of learnings about delegating; the project's norms stay in institutional.md.
    if (req.institutional) throw usageError(`${name('scope')} dispatch writes ${DISPATCH_FILE}, not a file of norms`, `drop ${name('institutional')}, or use ${name('scope')} project for a norm`);
    abs = path.join(vault.root, DISPATCH_FILE);
  }
  else if (scope === 'session') abs = path.join(vault.root, '.mem', 'jobs', safe(req.job, 'job'), fileName);
  else abs = path.join(vault.root, '.mem', 'jobs', safe(req.job, 'job'), 'tasks', safe(req.task, 'task'), 'MEMORY.md');
  if (!/\.(md|markdown)$/i.test(abs)) throw usageError(`${name('file')} must be a markdown file (.md)`);
  if (req.file) checkMemoryFile(vault, abs, req.file, name);
  return abs;
}

/**
 * Refuse a file mem would never read back as memory (outside the vault, a README, a file under
 * .git or .mem, an excluded one): the entry would be written and never found by search, list or
 * lint. The rule is the indexer's own (notMemoryFile), so what is accepted here is what is read.
 */
function checkMemoryFile(vault: Vault, abs: string, shown: string, name: FieldName): void {
  const rel = path.relative(vault.root, abs).split(path.sep).join('/');
  if (TYPED_NOTE_DIRS.some((d) => rel.startsWith(`${d}/`))) {
    throw usageError(`${name('file')} ${shown}: typed notes are written by mem episode and mem pattern, not as entries; nothing was written`);
  }
  const why = notMemoryFile(vault, abs);
  if (why === null) return;
  throw usageError(`${name('file')} ${shown} is not a memory file: ${why}; nothing was written`,
    'use MEMORY.md, institutional.md, proxy.md, dispatch.md, memory/**/*.md or .mem/jobs/<job>/MEMORY.md, or add the file to include: in .mem/config.yaml');
}

/**
 * Write one learning and index it. Checks come first (nothing is written on a usage error); once
 * the entry is written nothing fails: an index that cannot be updated comes back as `warning`.
 */
export async function addEntry(vault: Vault, req: AddRequest, cwd: string, name: FieldName = FLAG_NAMES): Promise<AddResult> {
  const { type, domain, importance, phase, scope } = checkAdd(req, name);
  const abs = targetFile(vault, req, scope, cwd, name);
  const { titleAndBody } = await import('../vault/format.js');
  const { renderNewEntry, appendEntries } = await import('../vault/edit.js');
  const { describeFile } = await import('../vault/vault.js');
  // Everything the caller gave is redacted before the entry is built from it.
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const clean = await redactDeep({ text: req.text, title: req.title, tags: splitTags(req.tags), sessionId: req.sessionId });
  const { text, tags, sessionId } = clean.value;
  const parts = titleAndBody(text);
  const title = clean.value.title?.trim() || (parts.fromHeading ? parts.title : firstSentence(text));
  const body = parts.fromHeading ? parts.body : text.trim();
  const bodyOut = !clean.value.title && !parts.fromHeading && body.replace(/\s+/g, ' ') === title ? '' : body;
  const { id, text: entryText } = renderNewEntry({
    type, domain, importance, phase, title, body: bodyOut, date: req.date,
    extra: { tags, session_id: sessionId, source: 'manual' },
  });
  const file = describeFile(vault, abs, cwd);
  const preamble = req.institutional ? '# Institutional memory\n' : scope === 'global' ? '# Global memory\n' : scope === 'dispatch' && !req.file ? '# Dispatch memory\n' : '# Memory\n';
  appendEntries(abs, file.path, [entryText], preamble, vault.config.format.entryHeader);

  // Indexed now, so `--no-refresh` searches see it too.
  const { indexWritten } = await import('../index/open.js');
  const { entryLine } = await import('../index/queries.js');
  const indexed = await indexWritten(vault, [file], (db) => entryLine(db, id));
  return {
    id, file, line: indexed.value ?? null,
    diagnostics: (indexed.report?.diagnostics ?? []).filter((d) => d.file === file.path),
    notes: indexed.notes, warning: indexed.warning,
    ...(redactionReport(clean.findings) && { redacted: redactionReport(clean.findings) }),
  };
}
