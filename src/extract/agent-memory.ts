// The memory coding agents already keep outside git, read as memories to import: Claude Code's
// auto memory (<config>/projects/<project>/memory/: a MEMORY.md index and one topic file per fact)
// and Codex's memories folder ($CODEX_HOME/memories/: MEMORY.md handbook, memory_summary.md).
// Reads stay inside the agent's folder: no link is followed out of it, files are size-bounded.

import fs from 'node:fs';
import path from 'node:path';
import { sha1Hex } from '../hash.js';
import { parseFrontmatter } from '../vault/frontmatter.js';
import { decodeVaultText, isFailure, readRegularBytes } from '../vault/read.js';
import { userHome } from '../vault/vault.js';
import { agentHomes, claudeProjectSlug, cwdInside } from './discover.js';

export const MEMORY_SOURCES = ['claude-memory', 'codex-memory'] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

/** One memory of an agent's folder, as it becomes an entry. */
export interface AgentMemory {
  source: MemorySource;
  /** Its file, relative to the agent's memory folder, with `/` separators. */
  file: string;
  /** Which part of the file it is ('' for a whole topic file); stable while the part is. */
  key: string;
  /** The name the agent gave it (a topic file's `name`, a Codex task group). */
  name?: string;
  /** The agent's own category (Claude's `type`, a Codex section). */
  kind?: string;
  title: string;
  body: string;
  /** mem's entry type, when the agent's category says it. */
  type?: string;
  /** Where it belongs: about the user (every project) or about this project. */
  scope: 'project' | 'global';
}

export interface MemoryProblem {
  file: string;
  error: string;
}

export interface MemoryRead {
  memories: AgentMemory[];
  /** Files that could not be read or parsed (each skipped, the rest read). */
  problems: MemoryProblem[];
  /** What was read and left out on purpose, with why (another project's, an empty file, …). */
  left: { file: string; what: string; why: string }[];
}

/** A topic file or an index is a few kilobytes; past this it is not a memory (and is not read). */
export const MAX_MEMORY_FILE = 256 * 1024;
/** Codex's MEMORY.md handbook grows with every consolidation: read up to this much. */
export const MAX_HANDBOOK_FILE = 4 << 20;
/** Files read from one folder at most (a folder with more is not an agent's memory). */
export const MAX_MEMORY_FILES = 2000;

// ---- reading inside the folder only ----

type Read = { text: string } | { error: string; missing?: boolean };

/**
 * The text of `rel` inside `dir`, or why not: a link (or `..`) leading out of the folder is
 * refused, only regular files are opened, and at most `max` bytes are read.
 */
export function readInside(dirReal: string, rel: string, max = MAX_MEMORY_FILE): Read {
  const abs = path.resolve(dirReal, rel);
  if (!inside(dirReal, abs)) return { error: 'is outside the memory folder; not read' };
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    return { error: 'is missing (a link to nothing, or removed)', missing: true };
  }
  if (!inside(dirReal, real)) return { error: 'is a link out of the memory folder; not followed' };
  const buf = readRegularBytes(real, max);
  if (isFailure(buf)) return { error: buf.error };
  const r = decodeVaultText(buf);
  return 'error' in r ? { error: r.error } : { text: r.text };
}

function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** The folder's markdown files (top level), sorted; links among them are resolved when read. */
function markdownFiles(dirReal: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dirReal);
  } catch {
    return [];
  }
  return names.filter((n) => /\.md$/i.test(n)).sort().slice(0, MAX_MEMORY_FILES);
}

// ---- markdown pieces ----

/** A file's YAML frontmatter (between `---` lines at its top) and the rest. */
export function splitFrontmatter(text: string): { meta: Record<string, unknown>; body: string } | { error: string } {
  const m = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) {
    if (/^---[ \t]*\r?\n/.test(text)) return { error: 'its frontmatter has no closing --- line' };
    return { meta: {}, body: text };
  }
  const fm = parseFrontmatter(m[1] ?? '');
  if (!fm.ok) return { error: `its frontmatter is not valid YAML (line ${fm.line + 1}: ${fm.error})` };
  return { meta: fm.data, body: text.slice(m[0].length) };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The first sentence of a text (its first line), at most 80 characters: an entry's title. */
export function titleOf(text: string): string {
  const line = text.trim().split('\n')[0].replace(/^#+\s*/, '').replace(/^(?:[-*+]|\d+[.)])\s+/, '').trim();
  const m = /^(.{10,}?[.!?])(\s|$)/.exec(line);
  const s = m ? m[1] : line;
  return s.length > 80 ? `${s.slice(0, 77).trimEnd()}…` : s;
}

const BULLET = /^( {0,3})(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The items of a markdown text: each list item (with its continuation lines and nested items)
 * and each paragraph, in order; headings and blank lines end them. `heading` is the last
 * heading above the item.
 */
export function markdownItems(text: string): { text: string; heading: string; line: number }[] {
  const out: { text: string; heading: string; line: number }[] = [];
  const lines = text.split(/\r?\n/);
  let heading = '';
  let cur: { lines: string[]; heading: string; line: number; bullet: boolean } | null = null;
  const flush = () => {
    if (cur) {
      const t = cur.lines.join('\n').trim();
      if (t) out.push({ text: t, heading: cur.heading, line: cur.line });
    }
    cur = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      // A code block belongs to the item above it (or is one of its own).
      cur ??= { lines: [], heading, line: i + 1, bullet: false };
      cur.lines.push(line);
      for (i++; i < lines.length; i++) {
        cur.lines.push(lines[i]);
        if (lines[i].trim().startsWith(fence[1])) break;
      }
      continue;
    }
    if (!line.trim()) {
      // A blank line ends a paragraph; a list item goes on only when the next line is indented.
      const next = lines[i + 1] ?? '';
      if (!(cur?.bullet && /^\s{2,}\S/.test(next))) flush();
      else cur.lines.push('');
      continue;
    }
    const h = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(line);
    if (h) {
      flush();
      heading = h[2];
      continue;
    }
    if (/^\s*<!--.*-->\s*$/.test(line) || /^ {0,3}(?:[-*_][ \t]*){3,}$/.test(line)) {
      flush();
      continue;
    }
    const b = BULLET.exec(line);
    if (b && b[1].length <= 1) {
      flush();
      cur = { lines: [b[2]], heading, line: i + 1, bullet: true };
      continue;
    }
    cur ??= { lines: [], heading, line: i + 1, bullet: false };
    // A list item's continuation lines lose the indent that tied them to it (a nested item keeps the rest).
    cur.lines.push(cur.bullet ? line.replace(/^ {1,2}/, '') : line);
  }
  flush();
  return out;
}

/** Relative markdown links of a text (`[x](topic.md)`), as paths; web links and anchors left out. */
export function markdownLinks(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    let target = m[1].replace(/#.*$/, '');
    if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    try {
      target = decodeURIComponent(target);
    } catch {
      // kept as written
    }
    if (/\.md$/i.test(target)) out.push(target.replace(/^\.\//, ''));
  }
  return out;
}

function stableKey(...parts: string[]): string {
  return sha1Hex(parts.join('\0')).slice(0, 12);
}

/** A text as one line of words, for keys that survive re-wrapping and spacing. */
function normalized(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

// ---- Claude Code ----

/** Claude Code's memory types: who the user is, how to work, the project, pointers elsewhere. */
const CLAUDE_TYPES: Record<string, { type: string; scope: 'project' | 'global' }> = {
  user: { type: 'declarative', scope: 'global' },
  feedback: { type: 'directive', scope: 'project' },
  project: { type: 'declarative', scope: 'project' },
  reference: { type: 'declarative', scope: 'project' },
};

/**
 * The git repository a folder belongs to, for a linked worktree: Claude Code keeps one memory
 * folder per repository, named after its main checkout, so every worktree shares it.
 */
export function mainCheckout(root: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, '.git'), 'utf8');
  } catch {
    return undefined; // a folder .git (the main checkout itself), or no repository
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m) return undefined;
  const gitdir = path.resolve(root, m[1]);
  const w = /^(.*)[\\/]\.git[\\/]worktrees[\\/][^\\/]+$/.exec(gitdir);
  return w ? w[1] : undefined;
}

const CLAUDE_SLUG_MAX = 200;

/** Claude Code's memory folder of a project: the first of its candidate folders that exists. */
export function claudeMemoryDir(root: string, env: NodeJS.ProcessEnv, home = userHome(env)): { dir: string | null; searched: string[] } {
  const roots = [path.resolve(root)];
  const add = (p: string | undefined) => {
    if (p && !roots.includes(p)) roots.push(p);
  };
  try {
    add(fs.realpathSync(root));
  } catch {
    // compared as written
  }
  for (const r of [...roots]) add(mainCheckout(r));
  const base = path.join(agentHomes(env, home).claude, 'projects');
  const searched: string[] = [];
  let names: string[] | null = null;
  for (const r of roots) {
    const slug = claudeProjectSlug(r);
    let name = slug;
    if (slug.length > CLAUDE_SLUG_MAX) {
      // A long name is cut and given a hash only Claude Code computes: one folder with that start.
      names ??= (() => {
        try {
          return fs.readdirSync(base);
        } catch {
          return [];
        }
      })();
      const prefix = slug.slice(0, CLAUDE_SLUG_MAX);
      const found = names.filter((n) => n.startsWith(prefix));
      if (found.length !== 1) {
        searched.push(path.join(base, `${prefix}…`, 'memory'));
        continue;
      }
      name = found[0];
    }
    const dir = path.join(base, name, 'memory');
    searched.push(dir);
    if (isDir(dir)) return { dir, searched };
  }
  return { dir: null, searched };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Claude Code's memories in `dir`: each topic file (the ones MEMORY.md links and any other .md
 * beside it) is one memory; a line of MEMORY.md that is not a link to a topic file (older
 * memories were written there directly) is one memory too.
 */
export function readClaudeMemory(dir: string): MemoryRead {
  const res: MemoryRead = { memories: [], problems: [], left: [] };
  const real = fs.realpathSync(dir);
  const topics = new Set<string>();
  const index = readInside(real, 'MEMORY.md');
  if ('text' in index) {
    for (const link of markdownLinks(index.text)) {
      const rel = toPosix(path.normalize(link));
      if (rel.toLowerCase() === 'memory.md') continue;
      topics.add(rel);
    }
    for (const item of markdownItems(index.text)) {
      // An index line (a link to a topic file and its one-line hook) is that file's, read below.
      if (markdownLinks(item.text).some((l) => topics.has(toPosix(path.normalize(l))))) continue;
      res.memories.push({
        source: 'claude-memory', file: 'MEMORY.md', key: stableKey(normalized(item.text)),
        ...(item.heading && { name: item.heading }),
        title: titleOf(item.text), body: item.text, scope: 'project',
      });
    }
  } else if (!index.missing) res.problems.push({ file: 'MEMORY.md', error: index.error });
  for (const name of markdownFiles(real)) if (name.toLowerCase() !== 'memory.md') topics.add(name);
  for (const rel of [...topics].sort()) {
    const r = readInside(real, rel);
    if ('error' in r) {
      // An index line left behind by a topic file Claude Code removed: nothing to read, no fault.
      if (r.missing) res.left.push({ file: 'MEMORY.md', what: rel, why: 'linked but missing' });
      else res.problems.push({ file: rel, error: r.error });
      continue;
    }
    const m = claudeTopic(rel, r.text);
    if ('error' in m) res.problems.push({ file: rel, error: m.error });
    else if (m.memory) res.memories.push(m.memory);
    else res.left.push({ file: rel, what: rel, why: 'empty' });
  }
  return res;
}

/** One topic file: frontmatter (name, description, type) and the fact in its body. */
export function claudeTopic(rel: string, text: string): { memory: AgentMemory | null } | { error: string } {
  const fm = splitFrontmatter(text);
  if ('error' in fm) return fm;
  const meta = fm.meta;
  const nested = meta.metadata && typeof meta.metadata === 'object' ? (meta.metadata as Record<string, unknown>) : {};
  const name = str(meta.name);
  const description = str(meta.description);
  const kind = (str(meta.type) ?? str(nested.type))?.toLowerCase();
  const body = fm.body.trim();
  if (!body && !description && !name) return { memory: null };
  const mapped = kind ? CLAUDE_TYPES[kind] : undefined;
  // The description is the one line that says what the memory is; the body says it in full.
  const line = description ?? name ?? titleOf(body);
  return {
    memory: {
      source: 'claude-memory', file: rel, key: '', ...(name && { name }), ...(kind && { kind }),
      title: line.length > 160 ? titleOf(line) : line,
      body,
      ...(mapped && { type: mapped.type }),
      scope: mapped?.scope ?? 'project',
    },
  };
}

// ---- Codex ----

export function codexMemoryDir(env: NodeJS.ProcessEnv, home = userHome(env)): { dir: string | null; searched: string[] } {
  const dir = path.join(agentHomes(env, home).codex, 'memories');
  return { dir: isDir(dir) ? dir : null, searched: [dir] };
}

/** The sections of Codex's MEMORY.md blocks that hold what was learned, and the entry type of each. */
const HANDBOOK_SECTIONS: Record<string, string> = {
  'user preferences': 'directive',
  'reusable knowledge': 'procedural',
  'failures and how to do differently': 'corrective',
};
/** The sections of memory_summary.md read: cross-task, so about the user (global). */
const SUMMARY_SECTIONS: Record<string, string> = {
  'user preferences': 'directive',
  'general tips': 'procedural',
};

/** A bullet's text without the task references Codex cites its evidence by ("[Task 2]"). */
function withoutTaskRefs(s: string): string {
  return s.replace(/(?:\s*\[Task \d+\])+\s*$/gim, '').trim();
}

/** The `## ` sections of a markdown text: heading and text. */
function sections(text: string, level: '#' | '##'): { heading: string; text: string }[] {
  const re = level === '#' ? /^# (?!#)(.*)$/gm : /^## (?!#)(.*)$/gm;
  const out: { heading: string; text: string }[] = [];
  const marks = [...text.matchAll(re)];
  for (const [i, m] of marks.entries()) {
    const end = i + 1 < marks.length ? marks[i + 1].index : text.length;
    out.push({ heading: m[1].trim(), text: text.slice(m.index + m[0].length, end) });
  }
  return out;
}

/** The working folders a Codex block names (`cwd=<path>` in applies_to and in its rollout notes). */
export function blockFolders(text: string, home: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\bcwd=([^;,)\s]+)/g)) {
    let p = m[1].replace(/[`'"]/g, '').replace(/\/\*+$/, '');
    if (p.startsWith('~/') || p === '~') p = path.join(home, p.slice(1));
    if (path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p)) out.push(p);
  }
  return [...new Set(out)];
}

/**
 * Codex's memories in `dir`. The folder serves every project: of MEMORY.md, the task groups whose
 * working folder is this project (its user preferences, reusable knowledge and failures, one
 * memory a bullet); of memory_summary.md, the cross-task user profile, preferences and tips, which
 * are about the user (global). Rollout summaries, raw memories and skills are evidence and
 * procedures Codex derives these from, not memories: not read.
 */
export function readCodexMemory(dir: string, root: string, home: string): MemoryRead {
  const res: MemoryRead = { memories: [], problems: [], left: [] };
  const real = fs.realpathSync(dir);
  const roots = [path.resolve(root)];
  try {
    const r = fs.realpathSync(root);
    if (!roots.includes(r)) roots.push(r);
  } catch {
    // compared as written
  }
  for (const r of [...roots]) {
    const main = mainCheckout(r);
    if (main && !roots.includes(main)) roots.push(main);
  }
  const handbook = readInside(real, 'MEMORY.md', MAX_HANDBOOK_FILE);
  if ('text' in handbook) {
    for (const block of sections(handbook.text, '#')) {
      const group = block.heading.replace(/^Task Group:\s*/i, '').trim();
      const folders = blockFolders(block.text, home);
      if (!folders.some((f) => cwdInside(f, roots))) {
        res.left.push({ file: 'MEMORY.md', what: `task group "${group}"`, why: folders.length ? 'of another folder' : 'names no working folder' });
        continue;
      }
      for (const s of sections(block.text, '##')) {
        const type = HANDBOOK_SECTIONS[s.heading.toLowerCase()];
        if (!type) continue;
        for (const item of markdownItems(s.text)) {
          const text = withoutTaskRefs(item.text);
          if (!text) continue;
          res.memories.push({
            source: 'codex-memory', file: 'MEMORY.md', key: stableKey(group.toLowerCase(), s.heading.toLowerCase(), normalized(text)),
            name: group, kind: s.heading.toLowerCase(), title: titleOf(text), body: text, type, scope: 'project',
          });
        }
      }
    }
  } else if (!handbook.missing) res.problems.push({ file: 'MEMORY.md', error: handbook.error });

  const summary = readInside(real, 'memory_summary.md');
  if ('text' in summary) {
    for (const s of sections(summary.text, '##')) {
      const heading = s.heading.toLowerCase();
      if (heading === 'user profile') {
        // One memory, kept by its section: each consolidation rewrites the profile in place.
        const text = s.text.trim();
        if (text) res.memories.push({ source: 'codex-memory', file: 'memory_summary.md', key: 'user-profile', name: s.heading, kind: heading, title: titleOf(text), body: text, type: 'declarative', scope: 'global' });
        continue;
      }
      const type = SUMMARY_SECTIONS[heading];
      if (!type) continue;
      for (const item of markdownItems(s.text)) {
        const text = withoutTaskRefs(item.text);
        if (!text) continue;
        res.memories.push({
          source: 'codex-memory', file: 'memory_summary.md', key: stableKey(heading, normalized(text)),
          kind: heading, title: titleOf(text), body: text, type, scope: 'global',
        });
      }
    }
  } else if (!summary.missing) res.problems.push({ file: 'memory_summary.md', error: summary.error });
  return res;
}
