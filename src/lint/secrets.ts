// Secrets in the vault's own files, for `mem lint`: where each one is (line, column and kind, never
// the value) and its redaction in place. A placeholder inside a plain YAML scalar would read as a
// flow sequence or a nested mapping, so such a scalar is quoted; a YAML header stays valid YAML.

import { MemError } from '../errors.js';
import { parseNote } from '../notes/note.js';
import { parseMemoryFile } from '../vault/format.js';
import { lineOfOffset, lineStarts } from '../vault/lines.js';
import { yaml } from '../vault/yaml.js';
import { findSecrets, placeholder, type SecretFinding } from '../secrets/redact.js';

export interface SecretPlace {
  kind: string;
  /** 1-based line of the secret's first character (a private key block may run over several). */
  line: number;
  /** 1-based column of that character, in characters (a character outside the BMP counts once). */
  column: number;
}

/** Where each finding starts in `text`, as a line and column. */
export function placesOf(text: string, findings: SecretFinding[]): SecretPlace[] {
  const starts = lineStarts(text);
  return findings.map((f) => {
    const line = lineOfOffset(starts, f.start);
    return { kind: f.kind, line, column: [...text.slice(starts[line - 1], f.start)].length + 1 };
  });
}

/** Every secret of a file's text, where it is and of what kind. */
export async function secretPlaces(text: string, known: Iterable<string | undefined> = []): Promise<SecretPlace[]> {
  return placesOf(text, await findSecrets(text, known));
}

interface Span {
  start: number;
  end: number;
}

/** The YAML of a file: each entry header, and a note's frontmatter (spans of the file text). */
function yamlSpans(text: string, file: string): Span[] {
  const out: Span[] = [];
  for (const b of parseMemoryFile(text, file).blocks) {
    if (!b.header) continue;
    const start = b.start + b.header.yamlStart;
    out.push({ start, end: start + b.header.yaml.length });
  }
  const fm = parseNote(text).frontmatter;
  if (fm && !out.some((s) => s.start === fm.yamlStart)) out.push({ start: fm.yamlStart, end: fm.yamlEnd });
  return out.sort((a, b) => a.start - b.start);
}

function yamlErrors(src: string): number {
  return yaml().parseDocument(src, { logLevel: 'silent', uniqueKeys: false }).errors.length;
}

/** The plain (unquoted) scalars of a YAML text: keys and values, in flow collections too. */
function plainScalars(src: string): Span[] {
  const Y = yaml();
  const out: Span[] = [];
  Y.visit(Y.parseDocument(src, { logLevel: 'silent', uniqueKeys: false }), {
    Scalar(_, node) {
      if (node.type === 'PLAIN' && node.range) out.push({ start: node.range[0], end: node.range[1] });
    },
  });
  return out;
}

/** `src` with each finding (spans in `src`, ordered, not overlapping) replaced by its placeholder. */
function replaced(src: string, findings: SecretFinding[], offset = 0): string {
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += src.slice(at, f.start - offset) + placeholder(f.kind);
    at = f.end - offset;
  }
  return out + src.slice(at);
}

/**
 * `text` (a vault file's, without its BOM) with each finding (merged and ordered, as findSecrets
 * gives them) replaced by its placeholder and nothing else changed, except in YAML: a plain scalar
 * that holds a secret is put in single quotes (`token: '[redacted: github-token]'`), which YAML
 * folds as it folds a plain one, so the value is the redacted text. Throws a MemError, changing
 * nothing, when the result would lose a header or a YAML header that parsed would no longer parse
 * (a secret that runs across YAML structure): that one is for a person to redact.
 */
export function redactInText(text: string, findings: SecretFinding[], file: string): string {
  if (findings.length === 0) return text;
  const parsed = parseMemoryFile(text, file);
  if (parsed.conflict) throw new MemError(`${file} has unresolved git conflict markers`, { where: { file, line: parsed.conflict.markers[0]?.line } });
  const spans = yamlSpans(text, file);
  // Edits in file order: a quoted scalar (with the placeholders inside it) or a lone placeholder.
  const edits: Array<Span & { text: string }> = [];
  let i = 0;
  while (i < findings.length) {
    const f = findings[i];
    const span = spans.find((s) => f.start >= s.start && f.start < s.end);
    const scalar = span && plainScalars(text.slice(span.start, span.end)).map((p) => ({ start: p.start + span.start, end: p.end + span.start })).find((p) => f.start >= p.start && f.start < p.end);
    if (!scalar) {
      edits.push({ start: f.start, end: f.end, text: placeholder(f.kind) });
      i++;
      continue;
    }
    const inside: SecretFinding[] = [];
    while (i < findings.length && findings[i].start < scalar.end) inside.push(findings[i++]);
    const end = Math.max(scalar.end, inside[inside.length - 1].end);
    edits.push({ start: scalar.start, end, text: `'${replaced(text.slice(scalar.start, end), inside, scalar.start).replace(/'/g, "''")}'` });
  }
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  out += text.slice(at);
  checkStructure(text, out, spans, file, placesOf(text, findings)[0]);
  return out;
}

/** The redacted text has the headers the text had, and each YAML header that parsed still parses. */
function checkStructure(before: string, after: string, spans: Span[], file: string, first: SecretPlace): void {
  const was = parseMemoryFile(before, file);
  const now = parseMemoryFile(after, file);
  const spansNow = yamlSpans(after, file);
  // Each block keeps its kind (a header or not) and its entry's id.
  const shape = (blocks: typeof was.blocks) => blocks.map((b) => `${b.header ? 'h' : '-'}${b.entry?.id ?? ''}`).join('\n');
  const broken =
    shape(now.blocks) !== shape(was.blocks) ||
    now.diagnostics.length > was.diagnostics.length ||
    spansNow.length !== spans.length ||
    spans.some((s, k) => yamlErrors(before.slice(s.start, s.end)) === 0 && yamlErrors(after.slice(spansNow[k].start, spansNow[k].end)) > 0);
  if (broken) {
    throw new MemError(`cannot redact the secret (${first.kind}) at line ${first.line} without breaking the file's structure; replace it by hand`, {
      where: { file, line: first.line },
    });
  }
}

/** Redact `text` in full: find its secrets, then replace them as redactInText does. */
export async function redactFileText(text: string, file: string, known: Iterable<string | undefined> = []): Promise<{ text: string; count: number }> {
  const findings = await findSecrets(text, known);
  return { text: redactInText(text, findings, file), count: findings.length };
}
