// `.mem/config.yaml`: include globs, scope multipliers and search/context defaults. A missing
// file means defaults; a malformed one is an error with its line.

import path from 'node:path';
import { flowSeq, NO_VALUE, scalar } from './frontmatter.js';
import { MemError } from '../errors.js';
import { readTarget } from './boundary.js';
import { isFailure, readRegularBytes } from './read.js';
import { DEFAULT_SCOPE_MULTIPLIERS, type Scope } from './scope.js';
import type { EntryHeaderSetting } from './format.js';

export interface VaultConfig {
  include: string[];
  exclude: string[];
  scopeMultipliers: Record<Scope, number>;
  search: { limit: number; candidates: number; rank: string };
  /** `modelTerms` (`retrieval.model_terms`): a query with more terms than search uses may be reduced to its key terms by the configured model. */
  retrieval: { modelTerms: boolean };
  context: { institutionalChars: number; taskChars: number; proxyChars: number; limit: number };
  /** Language model settings (flags and environment variables override them). */
  /** `agentCli`: false keeps mem from choosing an installed agent CLI (claude, codex, gemini) as the model by itself. */
  llm: { provider?: string; model?: string; baseUrl?: string; timeoutMs: number; maxRetries: number; agentCli?: boolean };
  /** `episodes`: whether `mem extract` also segments the session into episodes (src/episodes/). */
  /** `consolidate`: whether it then consolidates waiting episodes into learnings (src/episodes/consolidate-episodes.ts; off by default). */
  /** `episodesTopic`: whether its segmentation also asks the model for topic boundaries (one more request; off by default). */
  /** `episodeNote`: whether it writes the session's episode note (src/notes/extract-episode.ts; on by default). */
  extract: { scopes: string[]; budgetChars: number; episodes: boolean; consolidate: boolean; episodesTopic: boolean; episodeNote: boolean };
  /** Event segmentation (`mem segment`, src/episodes/segment.ts): its rules and thresholds. */
  /** `embeddings`/`topic`: whether the embedding endpoint and the language model (when configured) serve as channels. */
  /** `shareMessages`: keep episodes' messages in the committed files (off: in the git-ignored `.mem/local/`). */
  episodes: { minMessages: number; gapMinutes: number; maxMessages: number; surpriseThreshold: number; minEpisodeMessages: number; minTerms: number; embeddings: boolean; topic: boolean; shareMessages: boolean };
  /** Embedding endpoint for hybrid search; no model → lexical search only. */
  embeddings: EmbeddingsConfig;
  /** `format.entry_header`: how new entries' headers are written (auto: a file keeps its form; a new file gets the comment form). */
  format: { entryHeader: EntryHeaderSetting };
}

/** `embeddings:` in the config; MEM_EMBED_* variables override it (see embeddingsFrom). */
export interface EmbeddingsConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  dimensions?: number;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
  /** How vector and BM25 ranks are fused: reciprocal rank fusion (k = 60) or 0.7 × cosine + 0.3 × BM25. */
  fusion: 'rrf' | 'blend';
  /** `search.vector_weight` (0..2, default 1): how much the vector list counts against BM25's (see src/retrieve/hybrid.ts fuse). */
  vectorWeight: number;
}

export const DEFAULT_CONFIG: VaultConfig = {
  include: [],
  exclude: [],
  scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS },
  search: { limit: 10, candidates: 100, rank: 'prominence' },
  retrieval: { modelTerms: true },
  context: { institutionalChars: 4000, taskChars: 6000, proxyChars: 2000, limit: 12 },
  llm: { timeoutMs: 60_000, maxRetries: 2 },
  embeddings: { batchSize: 64, timeoutMs: 30_000, maxRetries: 2, fusion: 'rrf', vectorWeight: 1 },
  extract: { scopes: ['project', 'corrective'], budgetChars: 24_000, episodes: true, consolidate: false, episodesTopic: false, episodeNote: true },
  // The same numbers as DEFAULT_SEGMENT_CONFIG (src/episodes/segment.ts, kept off this module's imports).
  episodes: { minMessages: 5, gapMinutes: 15, maxMessages: 50, surpriseThreshold: 0.7, minEpisodeMessages: 4, minTerms: 4, embeddings: true, topic: true, shareMessages: false },
  format: { entryHeader: 'auto' },
};

/**
 * The embedding settings in effect: the config's, with MEM_EMBED_PROVIDER, MEM_EMBED_MODEL,
 * MEM_EMBED_BASE_URL and MEM_EMBED_DIMENSIONS above them. Null when no model is named or the
 * provider is `none`: search is then lexical only, exactly as without this feature.
 */
export function embeddingsFrom(cfg: EmbeddingsConfig, env: NodeJS.ProcessEnv): (EmbeddingsConfig & { model: string }) | null {
  const e = (k: string) => env[k]?.trim() || undefined;
  const provider = (e('MEM_EMBED_PROVIDER') ?? cfg.provider ?? 'openai-compatible').toLowerCase();
  const model = e('MEM_EMBED_MODEL') ?? cfg.model;
  if (!model || provider === 'none') return null;
  if (provider !== 'openai' && provider !== 'openai-compatible') {
    throw new MemError(`unknown embeddings provider "${provider}"`, { hint: 'use openai-compatible (OpenAI, Ollama, LM Studio, llama.cpp, vLLM) or none' });
  }
  const dimsEnv = e('MEM_EMBED_DIMENSIONS');
  const dimensions = dimsEnv !== undefined ? Number(dimsEnv) : cfg.dimensions;
  if (dimensions !== undefined && !(Number.isInteger(dimensions) && dimensions > 0)) {
    throw new MemError(`MEM_EMBED_DIMENSIONS must be a whole number > 0 (got ${JSON.stringify(dimsEnv)})`);
  }
  return { ...cfg, provider, model, baseUrl: e('MEM_EMBED_BASE_URL') ?? cfg.baseUrl, dimensions };
}

export const CONFIG_PATH = '.mem/config.yaml';

function num(v: unknown, dflt: number, key: string, file: string, min = 0): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
    throw new MemError(`${key} must be a number >= ${min} (got ${JSON.stringify(v)})`, { where: { file } });
  }
  return v;
}

function strings(v: unknown, key: string, file: string): string[] {
  if (v === undefined || v === null) return [];
  const arr = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(arr) || !arr.every((x) => typeof x === 'string')) {
    throw new MemError(`${key} must be a list of glob strings`, { where: { file } });
  }
  return arr as string[];
}

/**
 * An `include:` glob names files under the vault root: one that is absolute, starts at a home
 * folder (`~`) or climbs out with `..` would index (and `mem context` print) files from anywhere,
 * so it is refused. Links under the root that lead out are skipped by the walk instead.
 */
export function checkInsideRoot(glob: string): void {
  const why = /^(?:[\\/]|[A-Za-z]:)/.test(glob)
    ? 'is an absolute path'
    : glob.startsWith('~')
      ? 'starts at a home folder'
      : glob.split(/[\\/]/).includes('..')
        ? 'climbs out with ".."'
        : null;
  if (why === null) return;
  throw new MemError(`include: "${glob}" ${why}; include globs must stay inside the vault root`, {
    where: { file: CONFIG_PATH },
    hint: 'write it relative to the vault root (e.g. docs/**/*.md), or copy the files into the vault',
  });
}

async function parseYaml(text: string): Promise<unknown> {
  const { yaml } = await import('./yaml.js');
  const doc = yaml().parseDocument(text, { logLevel: 'silent' });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new MemError(`malformed YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`, {
      where: { file: CONFIG_PATH, line: e.linePos?.[0]?.line },
    });
  }
  return doc.toJS();
}

const CONFIG_KEY = /^([A-Za-z_][A-Za-z0-9_-]*)[ ]*:(?:[ ]+(.*))?$/;

/** A flow mapping of plain scalars (`{global: 1.0, team: 1.5}`), or NO_VALUE. */
function flowMap(v: string): unknown {
  const inner = v.slice(1, -1).trim();
  const out: Record<string, unknown> = {};
  if (inner === '') return out;
  if (/[[\]{}"'#]/.test(inner)) return NO_VALUE;
  for (const part of inner.split(',')) {
    const m = /^([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S(?:.*\S)?)$/.exec(part.trim());
    if (!m || Object.prototype.hasOwnProperty.call(out, m[1]) || m[1] === '__proto__' || m[2].includes(':')) return NO_VALUE;
    const x = scalar(m[2]);
    if (x === NO_VALUE || x === null) return NO_VALUE;
    out[m[1]] = x;
  }
  return out;
}

/**
 * The config file as the `yaml` library would read it, for the shape config files have: top-level
 * keys whose values are scalars, flow lists or maps, block lists of scalars or one level of `key: value`;
 * comments and blank lines. Null for anything else (anchors, tabs, multi-line strings, deeper
 * nesting, duplicate keys…), which goes to the library. Loading the library costs every command
 * 20–30 ms; a test compares the two on generated files.
 */
export function fastParseConfig(text: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let parent: string | null = null;
  let block: Record<string, unknown> | unknown[] | null = null;
  let childIndent = -1;
  const value = (v: string | undefined): unknown => {
    const t = (v ?? '').replace(/[ ]+#.*$/, '').trimEnd();
    if (t.startsWith('[')) return t.endsWith(']') ? flowSeq(t) : NO_VALUE;
    if (t.startsWith('{')) return t.endsWith('}') ? flowMap(t) : NO_VALUE;
    return scalar(t);
  };
  const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k) || k === '__proto__';
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const trimmed = line.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (line.includes('\t')) return null;
    const indent = line.length - trimmed.length;
    if (indent === 0 && !trimmed.startsWith('- ') && trimmed !== '-') {
      const m = CONFIG_KEY.exec(trimmed);
      if (!m || own(out, m[1])) return null;
      const rest = (m[2] ?? '').replace(/^#.*$/, '');
      parent = null;
      block = null;
      if (rest.trim() === '') {
        out[m[1]] = null;
        parent = m[1];
        childIndent = -1;
        continue;
      }
      const v = value(rest);
      if (v === NO_VALUE) return null;
      out[m[1]] = v;
      continue;
    }
    if (parent === null) return null;
    if (childIndent === -1) {
      childIndent = indent;
      block = trimmed.startsWith('- ') || trimmed === '-' ? [] : {};
      out[parent] = block;
    } else if (indent !== childIndent) return null;
    if (Array.isArray(block)) {
      if (!trimmed.startsWith('- ')) return null;
      const v = value(trimmed.slice(2).trimStart());
      if (v === NO_VALUE || Array.isArray(v)) return null;
      block.push(v);
    } else {
      const m = CONFIG_KEY.exec(trimmed);
      if (!m || own(block!, m[1])) return null;
      const v = value((m[2] ?? '').replace(/^#.*$/, ''));
      if (v === NO_VALUE) return null;
      (block as Record<string, unknown>)[m[1]] = v;
    }
  }
  return out;
}

/** A config is a page of settings; past this it is not one. */
const CONFIG_LIMIT = 1 << 20;

/** The vault's config: `.mem/config.yaml` under `root`, or `given`, its text from elsewhere (git's index). */
export async function loadConfig(root: string, given?: Buffer): Promise<VaultConfig> {
  const file = path.join(root, CONFIG_PATH);
  // A regular file inside the vault only: a FIFO there would hang every command, a link out of
  // the vault would let a cloned repository point mem at any file.
  const buf = given ?? readRegularBytes(readTarget(file, CONFIG_PATH, [root]), CONFIG_LIMIT);
  if (isFailure(buf)) {
    if (buf.kind === 'missing') return structuredClone(DEFAULT_CONFIG);
    throw new MemError(buf.kind === 'special' ? `${CONFIG_PATH} is ${buf.error}; mem reads only regular files` : `cannot read ${CONFIG_PATH}: ${buf.error}`, { hint: `fix or move ${CONFIG_PATH}` });
  }
  if (buf.length > CONFIG_LIMIT) throw new MemError(`${CONFIG_PATH} is over ${CONFIG_LIMIT} bytes`, { hint: `fix or move ${CONFIG_PATH}` });
  const text = buf.toString('utf8').replace(/^\ufeff/, '');
  const raw = (fastParseConfig(text) ?? (await parseYaml(text)) ?? {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new MemError('config must be a YAML mapping', { where: { file: CONFIG_PATH } });
  }
  const cfg = structuredClone(DEFAULT_CONFIG);
  cfg.include = strings(raw.include, 'include', CONFIG_PATH);
  for (const glob of cfg.include) checkInsideRoot(glob);
  cfg.exclude = strings(raw.exclude, 'exclude', CONFIG_PATH);
  const sm = (raw.scope_multipliers ?? {}) as Record<string, unknown>;
  for (const s of Object.keys(cfg.scopeMultipliers) as Scope[]) {
    cfg.scopeMultipliers[s] = num(sm[s], cfg.scopeMultipliers[s], `scope_multipliers.${s}`, CONFIG_PATH);
  }
  const search = (raw.search ?? {}) as Record<string, unknown>;
  cfg.search.limit = num(search.limit, cfg.search.limit, 'search.limit', CONFIG_PATH, 1);
  cfg.search.candidates = num(search.candidates, cfg.search.candidates, 'search.candidates', CONFIG_PATH, 1);
  if (typeof search.rank === 'string') cfg.search.rank = search.rank;
  const retrieval = (raw.retrieval ?? {}) as Record<string, unknown>;
  if (retrieval.model_terms !== undefined && retrieval.model_terms !== null) {
    if (typeof retrieval.model_terms !== 'boolean') throw new MemError(`retrieval.model_terms must be true or false (got ${JSON.stringify(retrieval.model_terms)})`, { where: { file: CONFIG_PATH } });
    cfg.retrieval.modelTerms = retrieval.model_terms;
  }
  const ctx = (raw.context ?? {}) as Record<string, unknown>;
  cfg.context.institutionalChars = num(ctx.institutional_chars, cfg.context.institutionalChars, 'context.institutional_chars', CONFIG_PATH);
  cfg.context.taskChars = num(ctx.task_chars, cfg.context.taskChars, 'context.task_chars', CONFIG_PATH);
  cfg.context.proxyChars = num(ctx.proxy_chars, cfg.context.proxyChars, 'context.proxy_chars', CONFIG_PATH);
  cfg.context.limit = num(ctx.limit, cfg.context.limit, 'context.limit', CONFIG_PATH, 1);
  const llm = (raw.llm ?? {}) as Record<string, unknown>;
  const str = (v: unknown, key: string): string | undefined => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new MemError(`${key} must be a string`, { where: { file: CONFIG_PATH } });
    return v;
  };
  cfg.llm.provider = str(llm.provider, 'llm.provider');
  cfg.llm.model = str(llm.model, 'llm.model');
  cfg.llm.baseUrl = str(llm.base_url, 'llm.base_url');
  cfg.llm.timeoutMs = num(llm.timeout_ms, cfg.llm.timeoutMs, 'llm.timeout_ms', CONFIG_PATH, 1);
  cfg.llm.maxRetries = num(llm.max_retries, cfg.llm.maxRetries, 'llm.max_retries', CONFIG_PATH);
  if (llm.agent_cli !== undefined && llm.agent_cli !== null) {
    if (typeof llm.agent_cli !== 'boolean') throw new MemError(`llm.agent_cli must be true or false (got ${JSON.stringify(llm.agent_cli)})`, { where: { file: CONFIG_PATH } });
    cfg.llm.agentCli = llm.agent_cli;
  }
  const ex = (raw.extract ?? {}) as Record<string, unknown>;
  if (ex.scopes !== undefined) cfg.extract.scopes = strings(ex.scopes, 'extract.scopes', CONFIG_PATH);
  cfg.extract.budgetChars = num(ex.budget_chars, cfg.extract.budgetChars, 'extract.budget_chars', CONFIG_PATH, 1000);
  const em = (raw.embeddings ?? {}) as Record<string, unknown>;
  cfg.embeddings.provider = str(em.provider, 'embeddings.provider');
  cfg.embeddings.model = str(em.model, 'embeddings.model');
  cfg.embeddings.baseUrl = str(em.base_url, 'embeddings.base_url');
  if (em.dimensions !== undefined && em.dimensions !== null) cfg.embeddings.dimensions = num(em.dimensions, 0, 'embeddings.dimensions', CONFIG_PATH, 1);
  cfg.embeddings.batchSize = num(em.batch_size, cfg.embeddings.batchSize, 'embeddings.batch_size', CONFIG_PATH, 1);
  cfg.embeddings.timeoutMs = num(em.timeout_ms, cfg.embeddings.timeoutMs, 'embeddings.timeout_ms', CONFIG_PATH, 1);
  cfg.embeddings.maxRetries = num(em.max_retries, cfg.embeddings.maxRetries, 'embeddings.max_retries', CONFIG_PATH);
  if (search.fusion !== undefined) {
    if (search.fusion !== 'rrf' && search.fusion !== 'blend') throw new MemError(`search.fusion must be rrf or blend (got ${JSON.stringify(search.fusion)})`, { where: { file: CONFIG_PATH } });
    cfg.embeddings.fusion = search.fusion;
  }
  if (search.vector_weight !== undefined && search.vector_weight !== null) {
    const w = search.vector_weight;
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 2) {
      throw new MemError(`search.vector_weight must be a number from 0 to 2 (got ${JSON.stringify(w)})`, { where: { file: CONFIG_PATH }, hint: '1 = vector and BM25 lists count alike (the default); lower it for a weak embedding model' });
    }
    cfg.embeddings.vectorWeight = w;
  }
  if (ex.episodes !== undefined && ex.episodes !== null) {
    if (typeof ex.episodes !== 'boolean') throw new MemError(`extract.episodes must be true or false (got ${JSON.stringify(ex.episodes)})`, { where: { file: CONFIG_PATH } });
    cfg.extract.episodes = ex.episodes;
  }
  if (ex.episode_note !== undefined && ex.episode_note !== null) {
    if (typeof ex.episode_note !== 'boolean') throw new MemError(`extract.episode_note must be true or false (got ${JSON.stringify(ex.episode_note)})`, { where: { file: CONFIG_PATH } });
    cfg.extract.episodeNote = ex.episode_note;
  }
  if (ex.consolidate !== undefined && ex.consolidate !== null) {
    if (typeof ex.consolidate !== 'boolean') throw new MemError(`extract.consolidate must be true or false (got ${JSON.stringify(ex.consolidate)})`, { where: { file: CONFIG_PATH } });
    cfg.extract.consolidate = ex.consolidate;
  }
  if (ex.episodes_topic !== undefined && ex.episodes_topic !== null) {
    if (typeof ex.episodes_topic !== 'boolean') throw new MemError(`extract.episodes_topic must be true or false (got ${JSON.stringify(ex.episodes_topic)})`, { where: { file: CONFIG_PATH } });
    cfg.extract.episodesTopic = ex.episodes_topic;
  }
  const ep = (raw.episodes ?? {}) as Record<string, unknown>;
  cfg.episodes.minMessages = num(ep.min_messages, cfg.episodes.minMessages, 'episodes.min_messages', CONFIG_PATH, 1);
  cfg.episodes.gapMinutes = num(ep.gap_minutes, cfg.episodes.gapMinutes, 'episodes.gap_minutes', CONFIG_PATH);
  cfg.episodes.maxMessages = num(ep.max_messages, cfg.episodes.maxMessages, 'episodes.max_messages', CONFIG_PATH, 1);
  cfg.episodes.surpriseThreshold = num(ep.surprise_threshold, cfg.episodes.surpriseThreshold, 'episodes.surprise_threshold', CONFIG_PATH);
  cfg.episodes.minEpisodeMessages = num(ep.min_episode_messages, cfg.episodes.minEpisodeMessages, 'episodes.min_episode_messages', CONFIG_PATH, 1);
  cfg.episodes.minTerms = num(ep.min_terms, cfg.episodes.minTerms, 'episodes.min_terms', CONFIG_PATH);
  for (const [k, key] of [['embeddings', 'embeddings'], ['topic', 'topic'], ['share_messages', 'shareMessages']] as const) {
    const v = ep[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'boolean') throw new MemError(`episodes.${k} must be true or false (got ${JSON.stringify(v)})`, { where: { file: CONFIG_PATH } });
    cfg.episodes[key] = v;
  }
  const fmt = (raw.format ?? {}) as Record<string, unknown>;
  if (fmt.entry_header !== undefined && fmt.entry_header !== null) {
    const v = fmt.entry_header;
    if (v !== 'auto' && v !== 'yaml' && v !== 'comment') {
      throw new MemError(`format.entry_header must be auto, yaml or comment (got ${JSON.stringify(v)})`, { where: { file: CONFIG_PATH }, hint: 'auto: a file keeps the form its entries have, a new file gets comment; yaml: `---` lines around the header; comment: one `<!-- mem {…} -->` line' });
    }
    cfg.format.entryHeader = v;
  }
  return cfg;
}
