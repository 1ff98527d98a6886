// The messages of episodes kept on this machine only: `.mem/local/episodes/<session>.md`, in a
// folder git never sees (a `.gitignore` of `*` inside it, whatever the project's own says). The
// committed episode file keeps each episode's title, summary, times and surprise.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { staysInside, writeTarget } from '../vault/boundary.js';
import { parseMemoryFile, type Block } from '../vault/format.js';
import { readVaultText } from '../vault/read.js';
import { hasUnsafeControl, newlineOf, safeLine, withNewline } from '../vault/safetext.js';
import { withFileLock, writeFileAtomic } from '../vault/write.js';
import { messagesOfBody, showsDetail, type DetailLevel } from './detail.js';

export const LOCAL_DIR = '.mem/local';
export const LOCAL_EPISODES_DIR = `${LOCAL_DIR}/episodes`;
const COMMITTED_DIR = '.mem/episodes';

/** The local file of a committed episode file (`.mem/episodes/x.md` → `.mem/local/episodes/x.md`). */
export function localFileFor(root: string, committedRel: string): { abs: string; rel: string } {
  const rel = `${LOCAL_EPISODES_DIR}/${path.posix.basename(committedRel)}`;
  return { abs: path.join(root, ...rel.split('/')), rel };
}

/** A file's text, null when it is missing (a FIFO, socket or folder in its place is an error, never opened). */
function readLocal(abs: string): ReturnType<typeof readVaultText> | null {
  const r = readVaultText(abs);
  return 'gone' in r && r.gone ? null : r;
}

/**
 * The `.gitignore` inside `.mem/local` that keeps the folder out of git even when the project's
 * `.gitignore` lacks mem's line (a vault set up by an older mem, a hand-written one).
 */
export function ensureLocalIgnore(root: string): void {
  const file = path.join(root, ...LOCAL_DIR.split('/'), '.gitignore');
  const target = writeTarget(file, `${LOCAL_DIR}/.gitignore`, root);
  const current = readLocal(target);
  if (current !== null && 'text' in current && current.text.split(/\r?\n/).some((l) => l.trim() === '*')) return;
  // Anything else there (missing, another text, a FIFO) is replaced: the folder must stay out of git.
  writeFileAtomic(target, '# Written by mem: what is here stays on this machine.\n*\n');
}

const PREAMBLE = (session: string) => `# Messages of session ${session}\n\nKept on this machine only: \`${LOCAL_DIR}\` is not committed. Written by \`mem segment\`; \`.mem/episodes/\` holds the summaries.\n`;

// `## <episode id>` opens each episode's section; message lines are quoted (`> `), so no line of
// a message can read as one.
const SECTION_RE = /^## (ep-[A-Za-z0-9._-]+)[ \t]*\r?$/gm;

/** The <details> block of each episode, by id, from a local file's text. */
export function parseLocal(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const heads = [...text.matchAll(SECTION_RE)];
  heads.forEach((m, i) => {
    const end = i + 1 < heads.length ? heads[i + 1].index! : text.length;
    out.set(m[1], text.slice(m.index! + m[0].length, end).trim());
  });
  return out;
}

/** A local file's text (LF) from each episode's <details> block, in order. */
export function renderLocal(session: string, sections: Iterable<[string, string]>): string {
  const parts = [PREAMBLE(safeLine(session))];
  for (const [id, details] of sections) parts.push(`## ${id}\n\n${details.trim()}\n`);
  return parts.join('\n');
}

/**
 * Write (or replace) the local file of a committed episode file with these sections, under its
 * lock, atomically; its line endings are kept. Returns whether the bytes changed.
 */
export function writeLocal(root: string, committedRel: string, session: string, sections: [string, string][]): boolean {
  const local = localFileFor(root, committedRel);
  ensureLocalIgnore(root);
  return withFileLock(local.abs, (lock) => {
    let old: string | null = null;
    const r = readLocal(local.abs);
    if (r !== null) {
      if ('error' in r) throw new MemError(`${r.error}; not writing to it`, { where: { file: local.rel }, hint: `move it away; mem segment writes it again` });
      old = r.text;
    }
    const text = withNewline(renderLocal(session, sections), old === null ? '\n' : newlineOf(old));
    if (hasUnsafeControl(text)) throw new Error('writeLocal: unsafe control character in the local episode file');
    if (old === text) return false;
    lock.replace(text);
    return true;
  }, local.rel);
}

/** A local file's text, or null when it is missing, unreadable, or leads out of the vault. */
function localText(root: string, abs: string): string | null {
  if (!staysInside(abs, root).inside) return null;
  const r = readLocal(abs);
  return r === null || 'error' in r ? null : r.text;
}

/**
 * Reads episodes' messages from the local store, each file once. `messages(path, id, body)`: the
 * quoted messages of an episode — from its body when the committed file keeps them (shared, or
 * written by an older mem), else from the local file; '' when neither has them.
 */
export class LocalMessages {
  private readonly files = new Map<string, Map<string, string>>();
  constructor(private readonly root: string) {}

  messages(committedRel: string, id: string, body: string): string {
    const inline = messagesOfBody(body);
    if (inline !== '') return inline;
    return messagesOfBody(this.details(committedRel, id));
  }

  /** The episode's <details> block in the local store, or ''. */
  details(committedRel: string, id: string): string {
    if (!committedRel.startsWith(`${COMMITTED_DIR}/`)) return '';
    let sections = this.files.get(committedRel);
    if (!sections) {
      const text = localText(this.root, localFileFor(this.root, committedRel).abs);
      sections = text === null ? new Map() : parseLocal(text);
      this.files.set(committedRel, sections);
    }
    return sections.get(id) ?? '';
  }
}

/**
 * The hits (search results, a context's learnings; `rank` is the position) with `messages` set on
 * each episode the detail level shows: from the committed body, else from the local store.
 */
export function withMessages<T extends { path: string; id: string; body: string; episode?: { key_moment: boolean }; messages?: string }>(root: string, hits: T[], detail: DetailLevel): T[] {
  if (detail === 'none' || !hits.some((h) => h.episode)) return hits;
  const local = new LocalMessages(root);
  return hits.map((h, rank) => (h.episode && showsDetail(detail, rank, h.episode.key_moment) ? { ...h, messages: local.messages(h.path, h.id, h.body) } : h));
}

/** An episode's messages section as episode-file.ts writes it: the block and the blank line after it. */
const DETAILS_RE = /^<details>\r?\n<summary>[^\n]*<\/summary>\r?\n[\s\S]*?^<\/details>[ \t]*(?:\r?\n|$)(?:[ \t]*\r?\n)?/m;

/** The <details> block of an entry's raw text (after its header), or null. */
function detailsOf(b: Block): { start: number; end: number; text: string } | null {
  if (!b.header || !b.entry || b.entry.meta.kind !== 'episode') return null;
  const from = b.header.bodyStart;
  const m = DETAILS_RE.exec(b.raw.slice(from));
  if (!m) return null;
  return { start: from + m.index, end: from + m.index + m[0].length, text: m[0] };
}

/** Committed episode files (regular files under .mem/episodes/, never through a link). */
export function committedEpisodeFiles(root: string): string[] {
  const dir = path.join(root, ...COMMITTED_DIR.split('/'));
  let names: string[];
  try {
    if (!fs.lstatSync(dir).isDirectory()) return [];
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  // A file gone between the listing and this look is no longer one.
  return names.filter((n) => n.endsWith('.md') && fs.lstatSync(path.join(dir, n), { throwIfNoEntry: false })?.isFile()).sort().map((n) => `${COMMITTED_DIR}/${n}`);
}

export interface SharedMessages {
  /** The committed file, relative to the root. */
  path: string;
  /** Episodes whose messages it holds. */
  episodes: number;
  bytes: number;
}

/** Committed episode files that hold messages (shared, or written before mem kept them local). */
export function findSharedMessages(root: string): SharedMessages[] {
  const out: SharedMessages[] = [];
  for (const rel of committedEpisodeFiles(root)) {
    const r = readVaultText(path.join(root, ...rel.split('/')));
    if ('error' in r || !/^<details>/m.test(r.text)) continue;
    let episodes = 0;
    let bytes = 0;
    for (const b of parseMemoryFile(r.text, rel).blocks) {
      const d = detailsOf(b);
      if (d) {
        episodes++;
        bytes += Buffer.byteLength(d.text);
      }
    }
    if (episodes > 0) out.push({ path: rel, episodes, bytes });
  }
  return out;
}

export interface MoveResult {
  /** Committed files rewritten without their messages. */
  files: string[];
  episodes: number;
  bytes: number;
}

/**
 * Move the messages of every committed episode file into the local store: per file, under both
 * files' locks, the local file is written first (its sections merged with what it held), then
 * the committed file loses only its <details> blocks (every other byte, BOM and line endings
 * kept). A file mem cannot parse cleanly, or with conflict markers, is left alone and reported.
 */
export function moveMessagesLocal(root: string, opts: { dryRun?: boolean } = {}): MoveResult & { skipped: string[] } {
  const result: MoveResult & { skipped: string[] } = { files: [], episodes: 0, bytes: 0, skipped: [] };
  const found = findSharedMessages(root);
  if (found.length === 0) return result;
  if (!opts.dryRun) ensureLocalIgnore(root);
  for (const { path: rel } of found) {
    const abs = path.join(root, ...rel.split('/'));
    const local = localFileFor(root, rel);
    withFileLock(abs, (lock) => withFileLock(local.abs, (localLock) => {
      const r = readVaultText(abs);
      if ('error' in r) {
        result.skipped.push(`${rel}: ${r.error}`);
        return;
      }
      const parsed = parseMemoryFile(r.text, rel);
      if (parsed.conflict || parsed.diagnostics.length > 0) {
        result.skipped.push(`${rel}: ${parsed.conflict ? 'has git conflict markers' : 'has entries mem cannot parse'}; resolve it (mem lint), then run again`);
        return;
      }
      const moved: [string, string][] = [];
      let bytes = 0;
      let text = parsed.preamble;
      for (const b of parsed.blocks) {
        const d = detailsOf(b);
        if (!d) {
          text += b.raw;
          continue;
        }
        moved.push([b.entry!.id, d.text.replace(/\r\n/g, '\n')]);
        text += b.raw.slice(0, d.start) + b.raw.slice(d.end);
        bytes += Buffer.byteLength(d.text);
      }
      if (moved.length === 0) return;
      // A local file mem cannot read is not overwritten: what it holds would be lost.
      const held = staysInside(local.abs, root).inside ? readLocal(local.abs) : { error: 'leads out of the vault through a symlink' };
      if (held !== null && 'error' in held) {
        result.skipped.push(`${rel}: ${local.rel} ${held.error}; move it away, then run again`);
        return;
      }
      result.episodes += moved.length;
      result.bytes += bytes;
      result.files.push(rel);
      if (opts.dryRun) return;
      const session = typeof parsed.entries[0]?.meta.session_id === 'string' ? (parsed.entries[0].meta.session_id as string) : path.posix.basename(rel, '.md');
      const oldLocal = held === null ? null : held.text;
      const sections = oldLocal === null ? new Map<string, string>() : parseLocal(oldLocal);
      for (const [id, details] of moved) sections.set(id, details);
      // The local copy is on disk before the committed file lets go of the messages.
      localLock.replace(withNewline(renderLocal(session, sections), oldLocal === null ? '\n' : newlineOf(oldLocal)));
      lock.replace(r.bom ? `\ufeff${text}` : text);
    }, local.rel), rel);
  }
  return result;
}
