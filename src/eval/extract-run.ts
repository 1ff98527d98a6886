// Running the labelled extraction set: each label file's transcript goes through the real
// `mem extract` pipeline (runExtract) in a throw-away vault, and what ends up in its memory files
// is scored against the labels (src/eval/extract.ts).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemError } from '../errors.js';
import { MEMORY_FILE_LIMIT, readRegularText } from '../vault/read.js';
import type { ExtractionScopeName } from '../extract/scopes.js';
import { ProviderError, type ProviderConfig, type ClientOptions } from '../llm/provider.js';
import { checkLabels, scoreTranscript, totals, type LabelFile, type LearningText, type Totals, type TranscriptScore } from './extract.js';

export interface ExtractEvalOptions {
  provider: ProviderConfig;
  client: ClientOptions;
  today: string;
  /** Where throw-away vaults are made (default: the system's temp folder). */
  tmpDir?: string;
  /** Extraction scopes (default: a new vault's, project and corrective). */
  scopes?: ExtractionScopeName[];
}

export interface TranscriptReport extends TranscriptScore {
  labels_file: string;
  transcript: string;
  learnings: LearningText[];
  /** Learnings the pipeline dropped as duplicates of one written before them. */
  duplicates: number;
}

export interface ExtractEvalReport {
  labels: string;
  provider: { name: string; model: string };
  transcripts: TranscriptReport[];
  /** Label files whose transcript was not found (e.g. ../shared is not beside this clone) or could not be extracted. */
  skipped: { labels_file: string; transcript: string; reason: string }[];
  overall: Totals;
}

/** The default extraction scopes of a new vault (both write MEMORY.md): what a newcomer's `mem extract` does. */
const SCOPES: ExtractionScopeName[] = ['project', 'corrective'];

const LABEL_EXT = /\.(ya?ml|json)$/i;

/** The label files of a folder (YAML or JSON), or one label file; sorted by name. */
export function labelFilesIn(where: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(where);
  } catch {
    throw new MemError('labels not found', { where: { file: where }, hint: 'give a folder of label files (.yaml/.json), e.g. test/fixtures/extract-labels' });
  }
  if (st.isFile()) return [where];
  const files = fs.readdirSync(where).filter((n) => LABEL_EXT.test(n)).sort().map((n) => path.join(where, n));
  if (files.length === 0) throw new MemError('no label files (.yaml, .yml, .json) in the folder', { where: { file: where } });
  return files;
}

/** A label file (a few dozen expected learnings) larger than this is not one. */
const LABELS_LIMIT = 16 << 20;

export async function readLabelFile(file: string): Promise<LabelFile> {
  const text = readRegularText(file, { maxBytes: LABELS_LIMIT, display: `the labels ${file}`, within: [] });
  let data: unknown;
  if (/\.json$/i.test(file)) {
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new MemError(`invalid JSON: ${(err as Error).message}`, { where: { file } });
    }
  } else {
    const { yaml } = await import('../vault/yaml.js');
    try {
      data = yaml().parse(text);
    } catch (err) {
      throw new MemError(`invalid YAML: ${(err as Error).message.split('\n')[0]}`, { where: { file } });
    }
  }
  return checkLabels(data, file);
}

/**
 * A relative transcript path is looked up from the label file's folder, then from each folder
 * above it: "examples/sessions/x.jsonl" and "../shared/transcripts/…" both resolve from the repo
 * root wherever the command runs, and a labels folder elsewhere can name files beside it.
 */
export function resolveTranscript(labelFile: string, transcript: string): string | null {
  if (path.isAbsolute(transcript)) return fs.existsSync(transcript) ? transcript : null;
  for (let dir = path.dirname(path.resolve(labelFile)); ; dir = path.dirname(dir)) {
    const abs = path.join(dir, transcript);
    if (fs.existsSync(abs)) return abs;
    if (path.dirname(dir) === dir) return null;
  }
}

/** What the real pipeline leaves in a fresh vault's memory files after extracting one transcript. */
async function extractInto(root: string, abs: string, labels: LabelFile, opts: ExtractEvalOptions): Promise<{ learnings: LearningText[]; duplicates: number }> {
  const { openVault } = await import('../vault/vault.js');
  const { checkFormat, loadTranscript } = await import('../extract/source.js');
  const { runExtract } = await import('../extract/pipeline.js');
  const { parseMemoryFile } = await import('../vault/format.js');
  fs.mkdirSync(path.join(root, '.mem'));
  const home = path.join(root, '.home');
  fs.mkdirSync(home);
  const vault = await openVault({ root, noConfig: true, env: { ...opts.client.env, MEM_HOME: home } });
  const loaded = loadTranscript(abs, { format: checkFormat(labels.format), cwd: root });
  // Only the learnings are scored: the episodes (and the model's request for their titles) are not made.
  vault.config.extract.episodes = false;
  const result = await runExtract(vault, loaded, {
    scopes: opts.scopes ?? SCOPES, provider: opts.provider, client: opts.client, budget: vault.config.extract.budgetChars,
    dryRun: false, force: true, fallback: false, today: opts.today,
  });
  // Read back what was written: the bodies, after the pipeline's own compaction.
  const learnings: LearningText[] = [];
  for (const file of [...new Set(result.written.map((w) => w.file))].sort()) {
    const abs2 = path.join(root, file);
    const parsed = parseMemoryFile(readRegularText(abs2, { maxBytes: MEMORY_FILE_LIMIT, display: file, within: [root] }), file);
    for (const e of parsed.entries) learnings.push({ title: e.title, body: e.body });
  }
  return { learnings, duplicates: result.duplicates.length };
}

export async function runExtractEval(labelsPath: string, opts: ExtractEvalOptions): Promise<ExtractEvalReport> {
  const files = labelFilesIn(labelsPath);
  // Every label file is checked before any extraction runs: a typo fails fast.
  const labelSets: LabelFile[] = [];
  for (const f of files) labelSets.push(await readLabelFile(f));
  const report: ExtractEvalReport = { labels: labelsPath, provider: { name: opts.provider.name, model: opts.provider.model }, transcripts: [], skipped: [], overall: totals([]) };
  const base = fs.mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), 'mem-eval-extract-'));
  try {
    for (const [i, labels] of labelSets.entries()) {
      const abs = resolveTranscript(labels.file, labels.transcript);
      if (!abs) {
        report.skipped.push({ labels_file: labels.file, transcript: labels.transcript, reason: 'transcript not found (looked from the label file\'s folder upwards)' });
        continue;
      }
      const root = path.join(base, String(i));
      fs.mkdirSync(root);
      let out: Awaited<ReturnType<typeof extractInto>>;
      try {
        out = await extractInto(root, abs, labels, opts);
      } catch (err) {
        // A transcript the pipeline refuses is reported with the others, not fatal to the run; a
        // provider that cannot answer (no key, unreachable) would fail them all: it stops the run.
        if (!(err instanceof MemError) || err instanceof ProviderError || err.exitCode === 2) throw err;
        report.skipped.push({ labels_file: labels.file, transcript: labels.transcript, reason: err.message });
        continue;
      }
      const { learnings, duplicates } = out;
      report.transcripts.push({ labels_file: labels.file, transcript: labels.transcript, ...scoreTranscript(labels, learnings, abs), learnings, duplicates });
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  report.overall = totals(report.transcripts);
  return report;
}
