// `mem segment TRANSCRIPT`: split a session into episodes (rules, then the surprise channel and,
// with a model, the topic channel) and write them to .mem/episodes/<session>.md; --dry-run only prints them.

import type { Command } from 'commander';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

interface SegmentOpts {
  format?: string;
  session?: string;
  dryRun?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
}

export function registerSegment(program: Command): void {
  program
    .command('segment')
    .description('split a transcript into episodes and write them to .mem/episodes/<session>.md')
    .argument('<transcript>', 'the transcript file ("-" reads stdin): any format mem extract reads')
    .option('--format <format>', 'force the transcript format: claude, stream-json, codex, gemini, messages, text')
    .option('--session <id>', 'session id for the episodes (default: the transcript\'s own)')
    .option('--dry-run', 'print the episodes, write nothing')
    .option('--provider <name>', 'the topic channel\'s model: anthropic, openai, claude-cli, codex-cli, gemini-cli or heuristic (none); default as for mem extract')
    .option('--model <model>', 'the model for the topic channel')
    .option('--base-url <url>', 'an OpenAI-compatible server for the topic channel (Ollama, vLLM, LM Studio)')
    .addHelpText('after', `
Boundaries: fewer than 5 messages make one episode; a gap over 15 minutes or 50 messages cut one;
then a human message whose surprise is above 0.7 opens a new one, and so does one a language model
names as a new subject (the topic channel: when a provider is configured, as for mem extract).
Surprise is 1 - cosine of the message (with its answers) and the 10 messages before it, over embeddings
when configured (embeddings: in .mem/config.yaml), else TF-IDF word vectors, discounted by how
ordinary that distance is in this session. A failing endpoint or model: one warning, then the
offline result. Thresholds and channels (episodes.embeddings, episodes.topic): the episodes: block
of .mem/config.yaml. Key moments (surprise >= 0.7) are marked \u2605. Running it again on the
same transcript rewrites the same file. The messages themselves go to .mem/local/episodes/ (git
never sees it) unless episodes.share_messages: true keeps them in the committed file.

Examples:
  $ mem segment ~/.claude/projects/-home-me-app/3f0c2a4e.jsonl
  $ mem segment session.jsonl --dry-run
  $ mem segment session.jsonl --provider openai --base-url http://localhost:11434/v1 --model llama3.1
  $ mem segment session.jsonl --provider heuristic     # no topic channel
  $ mem segment rollout.jsonl --json | jq '.episodes[] | {title, surprise}'`)
    .action(async (file: string, opts: SegmentOpts, command: Command) => {
      await segmentCommand(commandCtx(command), file, opts);
    });
}

function when(iso: string | null): string {
  return iso ? iso.replace('T', ' ').replace(/(\d\d:\d\d)(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$/, '$1') : '?';
}

/** `2026-01-29 15:12–15:32` (the end's date only when it differs). */
export function timeRange(start: string | null, end: string | null): string {
  if (!start && !end) return '(no times)';
  const a = when(start);
  const b = when(end);
  return a.slice(0, 10) === b.slice(0, 10) ? `${a}–${b.slice(11)}` : `${a} – ${b}`;
}

async function segmentCommand(ctx: Ctx, file: string, opts: SegmentOpts): Promise<void> {
  const { checkFormat } = await import('../../extract/source.js');
  const { checkSessionId } = await import('../../vault/sessions.js');
  const format = checkFormat(opts.format);
  if (opts.session !== undefined) checkSessionId(opts.session);
  const vault = await vaultFor(ctx);
  const { segmentTranscript } = await import('../../episodes/segment-transcript.js');
  const { channelOptionsFor } = await import('../../episodes/channels.js');
  const channels = await channelOptionsFor(vault.config, opts, ctx.env);
  const res = await segmentTranscript(vault, file, vault.config.episodes, {
    format, sessionId: opts.session, dryRun: opts.dryRun, cwd: ctx.cwd, now: new Date(ctx.now()).toISOString(), stdin: ctx.readStdin, channels,
  });
  for (const w of res.warnings) ctx.warn(w);
  if (res.redacted) ctx.warn((await import('../../secrets/redact.js')).describeRedaction(res.redacted));
  if (ctx.json) {
    ctx.out(JSON.stringify({ ...res, dry_run: Boolean(opts.dryRun) }, null, 2));
    return;
  }
  const { oneLine } = await import('../../quote.js');
  for (const e of res.episodes) {
    ctx.out(`${e.key_moment ? '\u2605' : ' '} ${timeRange(e.start_at, e.end_at)}  ${e.surprise.toFixed(2)}  ${oneLine(e.title)}  (messages ${e.message_start}–${e.message_end}, ${e.boundary})`);
  }
  const n = res.episodes.length;
  const via = [res.channels.surprise === 'embeddings' ? 'surprise over embeddings' : '', res.channels.topic ? 'topics from the model' : ''].filter(Boolean).join(', ');
  const what = `${n} episode${n === 1 ? '' : 's'} from ${res.messages} message${res.messages === 1 ? '' : 's'}${via ? ` (${via})` : ''}`;
  if (n === 0) ctx.info('no conversation messages in the transcript: nothing to segment');
  else if (opts.dryRun) ctx.info(`${what}; dry run, nothing written (would write ${res.path})`);
  else ctx.info(res.written ? `${what} → ${res.path}` : `${what}; ${res.path} already up to date`);
}
