// Agents' memories (agent-memory.ts) written as entries: redacted, through the quality gate, checked
// against what the target files hold, appended under the files' locks. Each memory's id comes from
// where it is (source, file, part), so importing again finds it: unchanged, or updated in place.

import fs from 'node:fs';
import path from 'node:path';
import { sha1Hex } from '../hash.js';
import type { RedactionReport } from '../secrets/redact.js';
import { appendTogether, editFilesTogether, renderNewEntry, type Append } from '../vault/edit.js';
import { parseMemoryFile, updateBlockMeta, type Block, type ParsedFile } from '../vault/format.js';
import { readRegular } from '../vault/read.js';
import { describeFile, type Vault } from '../vault/vault.js';
import type { AgentMemory } from './agent-memory.js';
import { checkLearning, DuplicateCheck, gateContext } from './gate.js';

export type ImportAction = 'created' | 'updated' | 'unchanged' | 'duplicate' | 'rejected';

export interface ImportedMemory {
  /** The agent's file, relative to its memory folder. */
  file: string;
  name?: string;
  title: string;
  scope: 'project' | 'global';
  /** The memory file of mem it went (or would go) to. */
  target: string;
  id: string;
  action: ImportAction;
  /** Why a memory was not written (the entry it repeats, the gate's rule, a retired entry). */
  reason?: string;
}

export interface MemoryImportReport {
  memories: ImportedMemory[];
  redacted?: RedactionReport;
}

export interface MemoryImportOptions {
  dryRun: boolean;
  today: string;
  /** Every memory to this scope instead of the one its kind says. */
  scope?: 'project' | 'global';
  /**
   * What tells this agent folder from others with the same file names (Claude Code has one per
   * project): part of the id of a memory written to the global file, which every project shares.
   */
  folderId: string;
}

/** Largest entry text taken (as mem add takes): a memory larger than this is a log, not a fact. */
const MAX_ENTRY_BYTES = 256 * 1024;

interface Plan {
  memory: AgentMemory;
  scope: 'project' | 'global';
  target: { abs: string; path: string; preamble: string };
  id: string;
  /** Of the redacted title and text: an import with another hash changed at the source. */
  hash: string;
  title: string;
  body: string;
  name?: string;
  reject?: string;
}

type Decision = { action: ImportAction; reason?: string; block?: Block; abs?: string };

/** A memory's id: its source and where it is, never its text (so an edit at the source updates it). */
export function memoryId(m: AgentMemory, scope: 'project' | 'global', folderId: string): string {
  return `${m.source}-${sha1Hex([m.source, scope === 'global' ? folderId : '', m.file, m.key].join('\0')).slice(0, 16)}`;
}

function tagOf(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export async function importMemories(vault: Vault, memories: readonly AgentMemory[], opts: MemoryImportOptions): Promise<MemoryImportReport> {
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const clean = await redactDeep(memories.map((m) => ({ title: m.title, body: m.body, name: m.name ?? '' })));
  const targets = new Map<string, Plan['target']>();
  const targetFor = (scope: 'project' | 'global'): Plan['target'] => {
    const abs = path.join(scope === 'global' ? vault.home : vault.root, 'MEMORY.md');
    let t = targets.get(abs);
    if (!t) {
      t = { abs, path: describeFile(vault, abs).path, preamble: scope === 'global' ? '# Global memory\n' : '# Memory\n' };
      targets.set(abs, t);
    }
    return t;
  };
  // The gate's rules that read the learning alone: a memory has no session to be copied from.
  const ctx = gateContext([]);
  const plans: Plan[] = memories.map((memory, i) => {
    const scope = opts.scope ?? memory.scope;
    const c = clean.value[i];
    const title = oneLine(c.title);
    // A one-line memory is its title; a longer one keeps its whole text under the title.
    const body = oneLine(c.body) === title ? '' : c.body.trim();
    const rejection = checkLearning({ title, body }, ctx);
    const reject = Buffer.byteLength(body, 'utf8') > MAX_ENTRY_BYTES ? `over ${MAX_ENTRY_BYTES / 1024} KB` : rejection ? `${rejection.reason}: ${rejection.detail}` : !title ? 'empty' : undefined;
    return {
      memory, scope, target: targetFor(scope), id: memoryId(memory, scope, opts.folderId),
      hash: sha1Hex(`${title}\0${body}`).slice(0, 12), title, body, ...(c.name && { name: oneLine(c.name) }), ...(reject && { reject }),
    };
  });
  const files = [...targets.values()];

  /** What becomes of each memory, given the target files as they are. */
  const decide = (parsed: ReadonlyMap<string, ParsedFile | null>): Decision[] => {
    const byId = new Map<string, { abs: string; block: Block }>();
    const known = new DuplicateCheck();
    for (const t of files) {
      const p = parsed.get(t.abs);
      if (!p) continue;
      for (const b of p.blocks) if (b.entry && b.header) byId.set(b.entry.id, { abs: t.abs, block: b });
      known.add(p.entries, t.path);
    }
    const seen = new Set<string>();
    return plans.map((p): Decision => {
      if (seen.has(p.id)) return { action: 'duplicate', reason: 'the same memory twice in the agent\'s folder' };
      seen.add(p.id);
      const have = byId.get(p.id);
      if (have) {
        const e = have.block.entry!;
        if (e.status === 'retired') return { action: 'unchanged', reason: 'retired in mem; left as it is' };
        if (e.meta.import_hash === p.hash) return { action: 'unchanged' };
        if (p.reject) return { action: 'rejected', reason: `${p.reject}; the entry is left as it is` };
        return { action: 'updated', block: have.block, abs: have.abs };
      }
      if (p.reject) return { action: 'rejected', reason: p.reject };
      const dup = known.check({ title: p.title, body: p.body }, p.target.path);
      if (dup) return { action: 'duplicate', reason: dup.detail };
      return { action: 'created' };
    });
  };

  const entryText = (p: Plan) => renderNewEntry({
    id: p.id, type: p.memory.type, title: p.title, body: p.body, date: opts.today,
    extra: {
      source: p.memory.source,
      tags: [p.memory.source, ...(p.memory.kind ? [tagOf(p.memory.kind)] : [])],
      imported_from: p.memory.file,
      imported_name: p.name,
      import_hash: p.hash,
    },
  }).text;

  const readAll = () => new Map(files.map((t) => {
    const text = readRegular(t.abs);
    return [t.abs, text === null ? null : parseMemoryFile(text, t.path)] as const;
  }));
  let decisions = decide(readAll());
  if (!opts.dryRun) {
    // Changed memories first, each entry rewritten in place under its file's lock (its other
    // fields, reinforcement and review state kept); then the new ones appended together.
    const updated = new Set<number>();
    const existing = files.filter((t) => fs.existsSync(t.abs));
    if (decisions.some((d) => d.action === 'updated') && existing.length > 0) {
      await editFilesTogether(existing, (parsed) => {
        const now = decide(new Map(existing.map((t, i) => [t.abs, parsed[i]])));
        const out = parsed.map((p) => ({ ...p, blocks: [...p.blocks] }));
        const changed = new Set<number>();
        now.forEach((d, k) => {
          if (d.action !== 'updated') return;
          const fi = existing.findIndex((t) => t.abs === d.abs);
          const bi = out[fi].blocks.indexOf(d.block!);
          out[fi].blocks[bi] = rewritten(d.block!, plans[k], entryText(plans[k]));
          changed.add(fi);
          updated.add(k);
        });
        return out.map((o, i) => (changed.has(i) ? o : null));
      }, { hint: 'nothing was written; fix the file (mem lint shows every problem) and import again' });
    }
    const appends: Append[] = files.map((t) => ({ ...t, texts: [] }));
    await appendTogether(appends, (parsed) => {
      decisions = decide(new Map(files.map((t, i) => [t.abs, parsed[i]])));
      decisions.forEach((d, k) => {
        if (d.action === 'created') appends[files.indexOf(plans[k].target)].texts.push(entryText(plans[k]));
      });
    });
    for (const k of updated) decisions[k] = { action: 'updated' };
  }
  const redacted = redactionReport(clean.findings);
  return {
    memories: plans.map((p, k) => ({
      file: p.memory.file, ...(p.name && { name: p.name }), title: p.title, scope: p.scope, target: p.target.path, id: p.id,
      action: decisions[k].action, ...(decisions[k].reason && { reason: decisions[k].reason }),
    })),
    ...(redacted && { redacted }),
  };
}

/**
 * An imported entry with the memory's new text: its heading and body replaced, its import hash
 * and name updated, every other field as it was (the heading keeps the entry's own date), in the
 * block's line-ending style and with the blank lines that followed it.
 */
function rewritten(block: Block, p: Plan, fresh: string): Block {
  const b = updateBlockMeta(block, { import_hash: p.hash, imported_name: p.name });
  const e = block.entry!;
  const date = /^\d{4}-\d{2}-\d{2}/.exec(e.created_at ?? '')?.[0];
  let text = fresh.slice(fresh.indexOf('\n---\n') + 5);
  if (date) text = text.replace(/^## \[[^\]]*\]/, `## [${date}]`);
  // The entry's own type names its heading, as it did (the user may have changed it).
  text = text.replace(/^(## \[[^\]]*\] )\w+: /, `$1${e.type.charAt(0).toUpperCase()}${e.type.slice(1)}: `);
  const tail = b.raw.slice(b.header!.bodyStart);
  const trailing = /(?:\r?\n)*$/.exec(tail)![0];
  let out = text.replace(/\n+$/, '') + trailing;
  if (b.raw.includes('\r\n')) out = out.replace(/\r?\n/g, '\r\n');
  return { ...b, raw: b.raw.slice(0, b.header!.bodyStart) + out };
}
