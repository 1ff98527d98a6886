// Three-way merge of typed notes (`.mem/patterns`, `.mem/episodes`) by frontmatter key and section,
// and the one entry point that picks the merge for any file the driver covers. Pure: three texts
// in, the merged text and its conflicts out. Parts changed on one side only keep that side's bytes.

import { parseNote, type ParsedNote } from '../notes/note.js';
import { eventParts } from '../notes/episode-note.js';
import { sameValue, updateFrontmatter } from '../vault/frontmatter.js';
import { newlineOf } from '../vault/safetext.js';
import { markRegion, mergeMemoryFile, type MergeOptions, type MergeResult } from './merge.js';
import { mergeKind } from './merge-coverage.js';

type Kind = 'pattern' | 'episode';
type Data = Record<string, unknown>;

const BOM = '\ufeff';
const MARKER_LINE = /^(<{7}|>{7})(?: |\r?$)/m;

/** Any file the merge driver covers: typed notes by field and section, the rest by entry id. */
export function mergeCoveredFile(base: string, ours: string, theirs: string, relPath: string, opts: MergeOptions = {}): MergeResult {
  const kind = mergeKind(relPath);
  return kind === 'entries' ? mergeMemoryFile(base, ours, theirs, relPath, opts) : mergeTypedNote(kind, base, ours, theirs, opts);
}

interface Section {
  key: string;
  name: string;
  /** The `## ` heading line, with its line ending. */
  heading: string;
  body: string;
  /** It ends its file (then no blank line follows it). */
  last: boolean;
}

interface Parts {
  data: Data;
  /** The text up to the YAML (`---\n`), the YAML, the closing `---` line, then up to the first section. */
  open: string;
  yaml: string;
  close: string;
  pre: string;
  sections: Section[];
}

const sectionKey = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, ' ').trim();

function partsOf(raw: string): Parts | string {
  if (raw.includes('\u0000')) return 'a side is binary (NUL bytes)';
  if (MARKER_LINE.test(raw)) return 'a side holds conflict markers';
  const note: ParsedNote = parseNote(raw);
  if (!note.frontmatter) return note.frontmatterError ? `a side's frontmatter does not parse (line ${note.frontmatterError.line})` : 'a side has no frontmatter';
  const { text } = note;
  const { yamlStart, yamlEnd, yaml, data } = note.frontmatter;
  const fence = /^---[ \t]*(?:\r?\n|$)/.exec(text.slice(yamlEnd));
  if (!fence) return 'a side\'s frontmatter has no closing line';
  const afterFence = yamlEnd + fence[0].length;
  const first = note.sections[0]?.start ?? text.length;
  const sections = note.sections.map((s, i) => ({ key: sectionKey(s.name), name: s.name, heading: text.slice(s.start, s.bodyStart), body: text.slice(s.bodyStart, s.end), last: i === note.sections.length - 1 }));
  const keys = new Set(sections.map((s) => s.key));
  if (keys.size !== sections.length) return 'a side has two sections of one name';
  return { data, open: text.slice(0, yamlStart), yaml, close: text.slice(yamlEnd, afterFence), pre: text.slice(afterFence, first), sections };
}

function withEol(text: string, nl: string): string {
  return nl === '\n' ? text.replace(/\r\n/g, '\n') : text.replace(/\r?\n/g, '\r\n');
}

/** Text compared for "changed": line endings and trailing blank lines do not count. */
function norm(s: string | undefined): string | undefined {
  return s === undefined ? undefined : s.replace(/\r\n/g, '\n').replace(/\s+$/, '');
}

/** A side that alone changed a value wins; null when both changed it differently. */
function threeWay<T>(b: T | undefined, o: T | undefined, t: T | undefined, same: (x: T | undefined, y: T | undefined) => boolean): { v: T | undefined } | null {
  if (same(o, t) || same(t, b)) return { v: o };
  if (same(o, b)) return { v: t };
  return null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function dateText(v: unknown): string | null {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v : null;
}

/** Items of a list-valued key: ours in order, minus those the other side removed, plus its new ones. */
function unionList(b: unknown[] | undefined, o: unknown[], t: unknown[]): unknown[] {
  const has = (list: unknown[] | undefined, x: unknown) => (list ?? []).some((y) => sameValue(x, y));
  const out = o.filter((x) => !(has(b, x) && !has(t, x)));
  for (const x of t) if (!has(b, x) && !has(out, x)) out.push(x);
  return out;
}

/**
 * The merged frontmatter. Patterns: occurrences add up from the base, the success rate is
 * recomputed from the successes each side added, last_validated is the later date. Episodes: a
 * metric or the duration is the larger (both describe one session), created_at the earlier. Lists
 * (tags) are unioned. Any other key: the side that alone changed it; `clash` when both did.
 */
function mergeFields(kind: Kind, b: Data | undefined, o: Data, t: Data): { meta: Data; clash: string[] } {
  const base = b ?? {};
  const meta: Data = {};
  const clash: string[] = [];
  const keys = [...new Set([...Object.keys(o), ...Object.keys(t), ...Object.keys(base)])];
  const both = (k: string) => !sameValue(o[k], base[k]) && !sameValue(t[k], base[k]);
  // Both sides recorded occurrences: each side's additions count, even when they wrote the same number.
  const counted = kind === 'pattern' && (both('occurrences') || both('success_rate')) ? patternCounts(b, o, t) : null;
  for (const k of keys) {
    const [bv, ov, tv] = [base[k], o[k], t[k]];
    const plain = threeWay(bv, ov, tv, sameValue);
    let v: unknown;
    if (counted && (k === 'occurrences' || k === 'success_rate')) v = counted[k];
    else if (plain) v = plain.v;
    else if ((k === 'last_validated' || k === 'last_reinforced' || k === 'updated_at') && dateText(ov) !== null && dateText(tv) !== null) {
      v = dateText(tv)! > dateText(ov)! ? tv : ov;
    } else if (kind === 'episode' && k === 'created_at' && dateText(ov) !== null && dateText(tv) !== null) {
      v = dateText(tv)! < dateText(ov)! ? tv : ov;
    } else if (kind === 'episode' && k === 'duration_minutes' && num(ov) !== null && num(tv) !== null) {
      v = Math.max(num(ov)!, num(tv)!);
    } else if (kind === 'episode' && k === 'metrics' && isMap(ov) && isMap(tv)) {
      const m = mergeFields(kind, isMap(bv) ? bv : undefined, ov, tv);
      for (const mk of m.clash) {
        const [x, y] = [num(ov[mk]), num(tv[mk])];
        if (x !== null && y !== null) m.meta[mk] = Math.max(x, y);
        else clash.push(`${k}.${mk}`);
      }
      v = m.meta;
    } else if (Array.isArray(ov) && Array.isArray(tv) && (bv === undefined || Array.isArray(bv))) {
      v = unionList(bv as unknown[] | undefined, ov, tv);
    } else {
      clash.push(k);
      v = ov;
    }
    if (v !== undefined) meta[k] = v;
  }
  return { meta, clash };
}

function isMap(v: unknown): v is Data {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * A pattern's occurrences and success rate when both sides recorded occurrences: each side's
 * added occurrences and successes (rate × occurrences) on top of the base's, the rate their
 * quotient (to 6 places, as add_pattern writes it). Null when a value is not a number.
 */
function patternCounts(b: Data | undefined, o: Data, t: Data): { occurrences: number; success_rate: number } | null {
  const nb = b ? num(b.occurrences) : 0;
  const rb = b ? num(b.success_rate) : 0;
  const [no, nt, ro, rt] = [num(o.occurrences), num(t.occurrences), num(o.success_rate), num(t.success_rate)];
  if (nb === null || rb === null || no === null || nt === null || ro === null || rt === null) return null;
  const n = no + nt - nb;
  if (!(n >= 1)) return null;
  const s = ro * no + rt * nt - rb * nb;
  return { occurrences: n, success_rate: Math.round(Math.min(1, Math.max(0, s / n)) * 1e6) / 1e6 };
}

/** The changes that turn `from` into `to` (undefined removes a key). */
function changesTo(from: Data, to: Data): Data {
  const changes: Data = {};
  for (const k of Object.keys(from)) if (!(k in to)) changes[k] = undefined;
  for (const [k, v] of Object.entries(to)) if (!sameValue(from[k], v)) changes[k] = v;
  return changes;
}

// ---- Sections ------------------------------------------------------------------------------

/** Sections whose lines are a set (list items): both sides' additions are kept. */
const UNION_SECTIONS: Record<Kind, string[]> = {
  pattern: ['observations', 'causal relationships', 'evidence episodes', 'relations'],
  episode: ['observations', 'lessons learned', 'relations'],
};

const lines = (body: string) => body.replace(/\r\n/g, '\n').split('\n');

/** The body's lines, blank lines at its end apart (they separate it from the next heading). */
function splitTail(body: string): { content: string[]; tail: string } {
  const m = /(?:\n[ \t]*)*$/.exec(body.replace(/\r\n/g, '\n'))!;
  const lf = body.replace(/\r\n/g, '\n');
  const content = lf.slice(0, m.index);
  return { content: content === '' ? [] : content.split('\n'), tail: lf.slice(m.index) };
}

/** A body with new content lines (no final line break) in place of `from`'s, its ending kept. */
function rebuild(content: string, from: { content: string[]; tail: string }): string {
  const had = from.content.length > 0;
  if (content === '') return had ? from.tail.replace(/^\n/, '') : from.tail;
  return had ? content + from.tail : `${content}\n${from.tail}`;
}

/** A list section's lines: ours, minus lines the other side removed, plus its new lines at the end. */
function unionLines(b: string | undefined, o: string, t: string): string {
  const key = (l: string) => l.trim();
  const bk = new Set((b === undefined ? [] : lines(b)).map(key).filter(Boolean));
  const tk = new Set(lines(t).map(key).filter(Boolean));
  const ot = splitTail(o);
  const kept = ot.content.filter((l) => key(l) === '' || !(bk.has(key(l)) && !tk.has(key(l))));
  const have = new Set(kept.map(key));
  for (const l of splitTail(t).content) {
    const k = key(l);
    if (k === '' || bk.has(k) || have.has(k)) continue;
    kept.push(l);
    have.add(k);
  }
  return rebuild(kept.join('\n'), ot);
}

/** Decision blocks (`### d001: …`) by id: one side's new decisions added; a decision changed on both sides clashes. */
function unionBlocks(b: string | undefined, o: string, t: string, remapO: (s: string) => string, remapT: (s: string) => string): string | null {
  const blocks = (body: string) => {
    const out = new Map<string, string>();
    const order: string[] = [];
    let cur = '';
    let text = '';
    for (const l of splitTail(body).content) {
      const h = /^###[ \t]+([A-Za-z0-9_.-]+):/.exec(l);
      if (h) {
        if (text !== '' || cur !== '') {
          out.set(cur, text);
          order.push(cur);
        }
        cur = h[1];
        text = '';
        if (out.has(cur)) return null;
      }
      text += `${l}\n`;
    }
    if (text !== '' || cur !== '') {
      out.set(cur, text);
      order.push(cur);
    }
    return { out, order };
  };
  const [B, O, T] = [b === undefined ? { out: new Map<string, string>(), order: [] } : blocks(b), blocks(o), blocks(t)];
  if (!B || !O || !T) return null;
  const pieces: string[] = [];
  const same = (x: string | undefined, y: string | undefined) => norm(x) === norm(y);
  for (const id of O.order) {
    const [bv, ov, tv] = [B.out.get(id), O.out.get(id)!, T.out.get(id)];
    if (tv === undefined) {
      if (bv !== undefined && same(bv, ov)) continue;
      pieces.push(remapO(ov));
      continue;
    }
    const pick = threeWay(bv, ov, tv, same);
    if (!pick) return null;
    pieces.push(pick.v === ov ? remapO(ov) : remapT(tv));
  }
  for (const id of T.order) {
    if (O.out.has(id)) continue;
    const bv = B.out.get(id);
    const tv = T.out.get(id)!;
    if (bv !== undefined && same(bv, tv)) continue;
    pieces.push(remapT(tv));
  }
  return rebuild(pieces.map((p) => p.replace(/\n+$/, '')).join('\n\n'), splitTail(o));
}

interface Ev {
  key: string;
  ts: string;
  content: string;
  type: string;
  caused: string[];
  leads: string[];
}

const EVENT_LINE = /^(\d+)\.[ \t]+\[([^\]]*)\][ \t]+(.*)$/;

function events(body: string | undefined): Ev[] | null {
  if (body === undefined) return [];
  const out: Ev[] = [];
  for (const l of splitTail(body).content) {
    if (l.trim() === '') continue;
    const m = EVENT_LINE.exec(l);
    if (!m) return null;
    const { content, type, caused, leads } = eventParts(m[3]);
    out.push({ key: `${m[2]}\u0000${content}\u0000${type}`, ts: m[2], content, type, caused, leads });
  }
  return out;
}

const eventId = (i: number) => `e${String(i + 1).padStart(3, '0')}`;

/**
 * The union of two timelines: ours, minus events the other side removed, plus its new ones, in
 * time order, numbered again. Events are named by their place (`e003`), so each side's links
 * (here and in Decisions) are renamed to the merged numbering (`remap*`).
 */
function mergeEvents(b: string | undefined, o: string, t: string): { body: string; remapO: (s: string) => string; remapT: (s: string) => string } | null {
  const [B, O, T] = [events(b), events(o), events(t)];
  if (!B || !O || !T) return null;
  const bk = new Set(B.map((e) => e.key));
  const tk = new Set(T.map((e) => e.key));
  // Lookups by key and place, so a long timeline costs its length, not its square.
  let merged: { ev: Ev; o?: number; t?: number }[] = [];
  const at = new Map<string, number>();
  O.forEach((e, i) => {
    if ((bk.has(e.key) && !tk.has(e.key)) || at.has(e.key)) return;
    at.set(e.key, merged.length);
    merged.push({ ev: e, o: i });
  });
  T.forEach((e, i) => {
    const k = at.get(e.key);
    if (k !== undefined) merged[k].t ??= i;
    else if (!bk.has(e.key)) {
      at.set(e.key, merged.length);
      merged.push({ ev: e, t: i });
    }
  });
  const times = merged.map((m) => Date.parse(m.ev.ts.replace(' ', 'T')));
  if (times.every((x) => !Number.isNaN(x))) merged = merged.map((_, i) => i).sort((x, y) => times[x] - times[y] || x - y).map((i) => merged[i]);
  const mapO = new Map<string, string>();
  const mapT = new Map<string, string>();
  merged.forEach((m, i) => {
    if (m.o !== undefined) mapO.set(eventId(m.o), eventId(i));
    if (m.t !== undefined) mapT.set(eventId(m.t), eventId(i));
  });
  // A link to an event no longer there is dropped; links to decisions stay as they are.
  const ren = (map: Map<string, string>, id: string) => (/^e\d+$/.test(id) ? map.get(id) ?? null : id);
  const linkList = (a: string[], b2: string[], ma: Map<string, string>, mb: Map<string, string>) => {
    const out: string[] = [];
    for (const x of [...a.map((id) => ren(ma, id)), ...b2.map((id) => ren(mb, id))]) if (x !== null && !out.includes(x)) out.push(x);
    return out;
  };
  const body = merged.map((m, i) => {
    const [eo, et] = [m.o === undefined ? undefined : O[m.o], m.t === undefined ? undefined : T[m.t]];
    const caused = linkList(eo?.caused ?? [], et?.caused ?? [], mapO, mapT);
    const leads = linkList(eo?.leads ?? [], et?.leads ?? [], mapO, mapT);
    const links = [...caused.map((x) => ` ← [[${x}]]`), ...leads.map((x) => ` → [[${x}]]`)].join('');
    return `${i + 1}. [${m.ev.ts}] ${m.ev.content}${links}${m.ev.type ? ` #${m.ev.type}` : ''}`;
  }).join('\n');
  const remap = (map: Map<string, string>) => (s: string) => s.replace(/\[\[(e\d+)\]\]/g, (all, id: string) => (map.has(id) ? `[[${map.get(id)}]]` : all));
  return { body: rebuild(body, splitTail(o)), remapO: remap(mapO), remapT: remap(mapT) };
}

// ---- The merge -------------------------------------------------------------------------------

/**
 * Merge two edits of a typed note. A side that is not a readable note (no frontmatter, markers,
 * NUL bytes) goes to `textMerge`. A part changed differently on both sides gets conflict markers
 * around it alone (for the frontmatter: around the whole header).
 */
export function mergeTypedNote(kind: Kind, base: string, ours: string, theirs: string, opts: MergeOptions = {}): MergeResult {
  const labels = opts.labels ?? {};
  const clean = (text: string): MergeResult => ({ text, conflicts: 0, conflictIds: [] });
  if (ours === theirs || theirs === base) return clean(ours);
  if (ours === base) return clean(theirs);
  const fallback = (why: string): MergeResult => {
    const tm = opts.textMerge;
    if (tm) {
      const r = tm(base, ours, theirs);
      return { text: r.text, conflicts: r.conflicts, conflictIds: [], fallback: why };
    }
    return { text: markRegion(ours, theirs, newlineOf(ours), labels), conflicts: 1, conflictIds: [], fallback: why };
  };
  const strip = (s: string) => (s.startsWith(BOM) ? s.slice(1) : s);
  const bom = ours.startsWith(BOM) ? BOM : '';
  const B = base.trim() === '' ? null : partsOf(strip(base));
  const O = partsOf(strip(ours));
  const T = partsOf(strip(theirs));
  for (const p of [B, O, T]) if (typeof p === 'string') return fallback(p);
  const [b, o, t] = [B as Parts | null, O as Parts, T as Parts];
  const nl = newlineOf(strip(ours).includes('\n') ? strip(ours) : strip(theirs));
  const fromT = (s: string) => withEol(s, nl);
  const parts: string[] = [];
  let conflicts = 0;

  // Frontmatter: both versions inside markers still carry every key that did merge.
  const { meta, clash } = mergeFields(kind, b?.data, o.data, t.data);
  const yamlFor = (side: Parts) => {
    const m: Data = { ...meta };
    for (const c of clash) if (!c.includes('.')) m[c] = side.data[c];
    try {
      return updateFrontmatter(side.yaml, changesTo(side.data, m));
    } catch {
      return null;
    }
  };
  const yo = yamlFor(o);
  const yt = yamlFor(t);
  if (yo === null || yt === null) return fallback('a side\'s frontmatter cannot be edited in place');
  if (clash.length > 0) {
    conflicts++;
    parts.push(o.open + markRegion(yo, fromT(yt), nl, labels) + o.close);
  } else parts.push(o.open + yo + o.close);
  const clashed = clash.map((c) => `field ${c}`);

  const pre = threeWay(b?.pre, o.pre, t.pre, (x, y) => norm(x) === norm(y));
  if (pre) parts.push(pre.v === o.pre ? o.pre : fromT(pre.v ?? ''));
  else {
    conflicts++;
    clashed.push('the title');
    parts.push(markRegion(o.pre, fromT(t.pre), nl, labels));
  }

  const find = (p: Parts | null, key: string) => p?.sections.find((s) => s.key === key);
  // Events first: their new numbering renames links in Decisions.
  let remapO = (s: string) => s;
  let remapT = (s: string) => s;
  let eventsBody: string | null = null;
  if (kind === 'episode') {
    const [eb, eo, et] = [find(b, 'events timeline'), find(o, 'events timeline'), find(t, 'events timeline')];
    if (eo && et && !(norm(eo.body) === norm(et.body) || norm(et.body) === norm(eb?.body))) {
      const m = mergeEvents(eb?.body, eo.body, et.body);
      if (m) {
        eventsBody = m.body;
        remapO = m.remapO;
        remapT = m.remapT;
      }
    } else if (eo && et && norm(eo.body) === norm(eb?.body) && norm(et.body) !== norm(eb?.body)) {
      // Theirs changed the timeline alone: its numbering holds, and ours' links follow it.
      const m = mergeEvents(eb?.body, eo.body, et.body);
      if (m) remapO = m.remapO;
    } else if (eo && et && norm(et.body) === norm(eb?.body) && norm(eo.body) !== norm(eb?.body)) {
      const m = mergeEvents(eb?.body, eo.body, et.body);
      if (m) remapT = m.remapT;
    }
  }

  const sectionBody = (key: string, bs: Section | undefined, os: Section, ts: Section): string => {
    const same = (x: string | undefined, y: string | undefined) => norm(x) === norm(y);
    if (kind === 'episode' && key === 'events timeline' && eventsBody !== null) return withEol(eventsBody, nl);
    if (kind === 'episode' && key === 'decisions') {
      if (same(os.body, ts.body) || same(ts.body, bs?.body)) return remapO(os.body);
      if (same(os.body, bs?.body)) return fromT(remapT(ts.body));
      const u = unionBlocks(bs?.body, os.body, ts.body, remapO, remapT);
      if (u !== null) return withEol(u, nl);
    } else {
      const pick = threeWay(bs?.body, os.body, ts.body, same);
      if (pick) return pick.v === os.body ? os.body : fromT(pick.v ?? '');
      if (UNION_SECTIONS[kind].includes(key)) return withEol(unionLines(bs?.body, os.body, ts.body), nl);
    }
    conflicts++;
    clashed.push(`section ${os.name}`);
    const end = (s: string) => s.replace(/(\r?\n)*$/, '') + nl;
    const tail = /(\r?\n)*$/.exec(os.body)![0].slice(nl.length) || '';
    return markRegion(end(os.body), end(fromT(ts.body)), nl, labels) + withEol(tail, nl);
  };

  const out: Section[] = [];
  for (const os of o.sections) {
    const ts = find(t, os.key);
    const bs = find(b, os.key);
    if (!ts) {
      // Removed by theirs and unchanged by ours: gone; changed by ours: kept.
      if (bs && norm(bs.body) === norm(os.body)) continue;
      out.push(os);
      continue;
    }
    out.push({ ...os, body: sectionBody(os.key, bs, os, ts) });
  }
  t.sections.forEach((ts, i) => {
    if (find(o, ts.key)) return;
    const bs = find(b, ts.key);
    if (bs && norm(bs.body) === norm(ts.body)) return;
    // After the section it follows in theirs, when the result has it.
    let at = out.length;
    for (let j = i - 1; j >= 0; j--) {
      const k = out.findIndex((s) => s.key === t.sections[j].key);
      if (k >= 0) {
        at = k + 1;
        break;
      }
    }
    out.splice(at, 0, { ...ts, heading: fromT(ts.heading), body: fromT(remapT(ts.body)) });
  });
  out.forEach((s, i) => {
    let body = s.body;
    // A section that ended its file and is now followed by another: a blank line between them.
    if (s.last && i < out.length - 1 && !/\n\r?\n$/.test(body)) body = body === '' || body.endsWith('\n') ? `${body}${nl}` : `${body}${nl}${nl}`;
    parts.push(s.heading + body);
  });
  return { text: bom + parts.join(''), conflicts, conflictIds: [], ...(clashed.length > 0 && { conflictParts: clashed }) };
}
