// The offline extractor: explicit signals only, each kept only when it reads as a whole rule a
// month later. A human saying "remember …", "always/never …", "don't …", "I prefer …"; a human
// correcting the agent (kept as a short rule, their words as evidence); a project command that
// failed and the step that fixed it (cause and fix). Lower importance than a model's learnings.

import { CORRECTION, INTERRUPTED, isHumanText } from './condense.js';
import { cleanTitle, safeBody, shorten, withEvidence, type Learning } from './learning.js';
import type { ExtractionScopeName } from './scopes.js';
import { clauseTitle, standalone } from './referents.js';
import type { TranscriptMessage } from './transcript.js';

/** A rule's lead-in, at the start of the sentence ("If we ever do X in the future, …" is not a rule). */
const REMEMBER = /^(?:remember|keep in mind|make sure|note|from now on|going forward|in (?:the )?future|next time)[,:]? (?:that |to )?/i;
/** The lead-in dropped from a rule's title ("make sure" stays: without it the rule reads as a fact). */
const LEAD_IN = /^(?:remember|keep in mind|note|from now on|going forward|in (?:the )?future|next time)[,:]? (?:that |to )?/i;
/** Openings that look like a correction and are not ("No worries", "No, that's fine"). */
const NOT_A_CORRECTION = /^(?:no (?:worries|problem|thanks|need)|(?:no|nope|actually),? (?:that'?s|it'?s|this is) (?:fine|ok|okay|good|great|right|perfect))/i;
/** "always"/"never" where it makes a rule: opening the sentence, after we/you, or after a named subject's must/should. */
const ALWAYS_NEVER = /^(?:(?:always|never)\b|(?:we|you)\s+(?:should\s+|must\s+|will\s+|do\s+)?(?:always|never)\b|[^,;:?]{3,60}?\b(?:must|should)\s+(?:always|never)\b)/i;
const DONT = /^(?:please\s+)?(?:don'?t|do not|avoid|stop)\b/i;
/** A stated preference or house rule, with the clause it governs. */
const PREFER = /^(?:i (?:prefer|(?:'d|would) rather|(?:always|usually) (?:use|want))|we (?:prefer|always|never|usually|use)|our (?:convention|style|rule|standard|policy|practice) (?:is|says))\b/i;
/** An exclusive rule, opening a clause: "only the `--local-dev` flag should …", "X must only …". */
const ONLY = /^(?:only\s+[^,;:?]{2,60}?\s+(?:should|must|may|is allowed to|are allowed to)\s+\w|[^,;:?]{3,60}?\s+(?:should|must)\s+only\s+\w)/i;
/** A tool call the human refused: an intervention, not an error to learn a fix from. */
export const REFUSED = /the user doesn'?t want to (?:proceed with this tool use|take this action)|\[Request interrupted by user for tool use\]/i;
/** Interjections before the rule itself ("No, don't …", "OK, also always …"). */
const LEAD = /^(?:(?:no|nope|ok|okay|actually|wait|great|thanks|also|please|hmm|sorry|well)[,.!:]?\s+)*/i;
/**
 * A request to keep what was just said ("remember this", "add this to CLAUDE.md", "don't forget
 * that"), even asked as a question: the learning is what "this" stands for, not the request.
 * "Remember that the tests …" is a rule with its lead-in, not such a request: the pronoun must
 * end the clause or be followed by an adverbial ("for next time", "going forward", "please").
 */
const KEEP_THIS = /\b(?:(?:remember|don'?t forget) (?:this|that|it)(?=\s*(?:[.!?,;:\u2014\u2013-]|$)|\s+(?:for\b|next time|going forward|in (?:the )?future|from now on|too\b|as well|please|so\b|when\b|and\b|because\b|if\b))|(?:add|put|write|save|note|record) (?:this|that|it)\b.{0,40}?\b(?:to|in|into) (?:the |our |your )?(?:[\w-]+\.md|memory|memories|notes|docs|readme)\b)/i;
/** "Remember this: …" points forward: the rule follows the colon. */
const KEEP_WHAT_FOLLOWS = /^[^:]{0,40}:\s*(\S.+)$/;

// ---------------------------------------------------------------------------------------------
// Whole clauses, not fragments

/** Words that carry no subject or object of their own. */
const FUNCTION_WORDS = new Set(
  ("a an the this that these those it its it's they them their there here we us our you your i me my he she him her " +
    "is are was were be been being am do does did done doing have has had having will would shall should can could may might must " +
    "and or but so then than if when while as of in on at to for from by with without into onto about over under up down out off " +
    "not no yes always never just only also too very anything something everything nothing else stuff thing things way really still even again now then please ok okay all any some each every more most " +
    "don't dont doesn't didn't won't can't cannot isn't aren't wasn't shouldn't wouldn't couldn't let's lets what which who whom whose why how where")
    .split(' '),
);
/** A clause that starts with one of these was cut from a longer sentence. */
/** A reason or concession with no main clause ("Since that is the stable link."): half a sentence. Conditions ("if …", "when …") can be rules. */
const REASON_ONLY = /^(?:since|although|though|whereas|as)\b[^,;]*$/i;
const MID_SENTENCE = /^(?:and|or|but|nor|so|then|because|which|that|who|whom|whose|than|like|plus|as well|(?:in|on|at|of|for|with|to|from|by|into|about|than)\b(?!\s+(?:the|this|that|these|those|our|my|your|each|every|all|any|a|an)\b))/i;
/** The verb's object is only a pronoun ("Don't do that", "Never touch it again"): meaningless later. */
const PRONOUN_OBJECT = /^(?:(?:please|always|never|don'?t|do not|make sure(?: to| you)?)\s+)*[a-z][\w'-]*\s+(?:it|this|that|them|these|those)(?:\s*$|\s*[.!,;]|\s+(?:again|now|here|there|anymore|please|yet|up|down|out|in|on|to|for|with|like|as|before|after|until|unless|when|if|or|and|without|either|at all)\b)/i;

/** "Always the same error", "Never mind": always/never not followed by a verb. */
const NO_VERB = /^(?:always|never)\s+(?:the|a|an|this|that|these|those|same|my|your|our|their|its|it|so|too|again|ever|mind|once|before|after|when|with|in|on|at)\b/i;
/**
 * A steer for this moment, not a rule for next month: "don't worry", "not yet", "for now", "this
 * time", "at the moment".
 */
const TRANSIENT = /^(?:please\s+)?(?:don'?t|do not)\s+(?:worry|bother|mind|panic)\b|\b(?:for now|(?:just )?yet|right now|this time|at the moment|for the moment|today|for this (?:task|pr|change|session))\b[.!]?\s*$/i;

function contentWords(s: string): string[] {
  return s
    .split(/\s+/)
    .map((w) => w.replace(/[.,;:!?)"']+$/, '').replace(/^[^\w`/.~-]+|[^\w`/.~-]+$/g, ''))
    .filter((w) => w.length >= 2 && !FUNCTION_WORDS.has(w.toLowerCase()));
}

/**
 * A learning's text is a whole clause that still means something next month: at least three
 * words with two content words (a verb and what it acts on), not opening mid-sentence, not
 * ending on a colon or an ellipsis (it introduced something that is not there), not a question,
 * and its verb's object not only a pronoun.
 */
export function isWholeClause(text: string): boolean {
  const s = text.trim();
  if (s.split(/\s+/).length < 3 || /[:\u2026,]$|\.\.\.$/.test(s) || /\?\s*$/.test(s)) return false;
  if (MID_SENTENCE.test(s) || REASON_ONLY.test(s) || PRONOUN_OBJECT.test(s) || NO_VERB.test(s) || TRANSIENT.test(s)) return false;
  return contentWords(s).length >= 2;
}

/** Cut at a word boundary to about `max` characters. */
function capWords(s: string, max: number): string {
  return shorten(s, max, { clauses: false });
}

/** The main clause of a sentence: what follows ", so …", ", but …" or ";" starts another thought. */
function mainClause(s: string): string {
  return s.split(/\s*;\s+|\s+[\u2014\u2013]\s+|,\s+(?:so|but|which|although|though)\s+/i)[0].trim();
}

// ---------------------------------------------------------------------------------------------
// Corrections as rules

const CORRECTION_LEAD = /^(?:(?:no|nope|wrong|actually|wait|stop|hmm|ok|okay|sorry|hey|again|that'?s (?:not (?:it|right|what i (?:meant|asked(?: for)?|wanted))|wrong|incorrect)|this is (?:not (?:it|right)|wrong)|not (?:like )?(?:that|this)|i said)\s*[,.!:;\u2014\u2013-]*\s+)+/i;
const IMPERATIVE = /^(?:use|run|keep|put|add|remove|call|connect|read|write|check|make|move|leave|ask|wait|revert|undo|start|try|install|build|test|commit|push|pull|rename|delete|create|set|change|switch|follow|avoid|prefer|always|never|only|just|go|fix|look|open|save|load|send|store|return|include|exclude|skip|drop|replace|merge|rebase|deploy|restart|stop)\b(?!')/i;

/**
 * The rule a correction implies, as a short imperative: the correction's lead-in dropped ("No,",
 * "Actually", "that's not it"), "I want it to X" → "X", "you should X" → "X", "you shouldn't X"
 * → "Don't X"; the main clause only, capped at about 100 characters. Null when no rule can be
 * read out of it (a question, a remark, a fragment).
 */
export function correctionRule(sentence: string): string | null {
  let s = sentence.trim().replace(CORRECTION_LEAD, '').trim();
  if (!s || /\?\s*$/.test(s)) return null;
  s = s.split(/,\s+(?:so|but|which|although|though)\s+/i)[0].trim();
  let rule: string | null = null;
  let m: RegExpExecArray | null;
  if ((m = /^i(?: want| need|'d like| would like| asked for| meant for| told you) (?:(?:it|you|this|that|them) )?to (.+)$/i.exec(s))) rule = m[1];
  // "I want the exporter to X": the subject is named, so it stays ("The exporter should X").
  else if ((m = /^i(?: want| need|'d like| would like) ((?:the|our|this|that|each|every) [\w./-]+(?: [\w./-]+)?) to (.+)$/i.exec(s))) rule = `${m[1]} should ${m[2]}`;
  else if ((m = /^(?:you|we) (?:should|need to|must|have to|ought to|are supposed to) (.+)$/i.exec(s))) rule = m[1];
  else if ((m = /^(?:you|we) (?:shouldn'?t|should not|must not|mustn'?t|can'?t|cannot|are not supposed to) (.+)$/i.exec(s))) rule = `Don't ${m[1]}`;
  else if (/^(?:please\s+)?(?:don'?t|do not|never)\b/i.test(s)) rule = s.replace(/^please\s+/i, '');
  else if (IMPERATIVE.test(s)) rule = s;
  else if (/^(?:the|this|our|each|every)\s+\S+.*\b(?:should|must|needs? to|has to|have to)\b/i.test(s)) rule = s;
  if (!rule) return null;
  rule = rule.replace(/!+$/, '');
  if (!isWholeClause(rule)) return null;
  rule = capWords(rule, 100);
  return rule.charAt(0).toUpperCase() + rule.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Failed project commands and their fix

/** Tools that run a shell command (their arguments carry `command`/`cmd`); edit, patch and read tools never teach the project. */
function shellCommand(call: string): string | null {
  const name = toolName(call);
  try {
    const args = JSON.parse(call.slice(name.length + 1, call.lastIndexOf(')'))) as Record<string, unknown>;
    for (const k of ['command', 'cmd']) {
      const v = args[k];
      let cmd: string | null = null;
      if (typeof v === 'string') cmd = v;
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) cmd = (v as string[]).join(' ').replace(/^(?:bash|sh|zsh) -l?c /, '');
      if (cmd === null) continue;
      // A patch sent through the shell is still the agent editing files.
      if (/^\s*(?:apply_patch|applypatch)\b|\*\*\* Begin Patch/.test(cmd)) return null;
      return cmd.trim();
    }
  } catch {
    // not JSON arguments: not a shell tool mem can read
  }
  return null;
}

/** The program a command runs (past `cd x &&`, env assignments, sudo, time). */
function program(cmd: string): string {
  const last = cmd.split(/\s*(?:&&|;)\s*/).filter((p) => !/^cd\s/.test(p))[0] ?? cmd;
  const words = last.trim().split(/\s+/).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w) && !['sudo', 'time', 'env', 'command', 'exec'].includes(w));
  return (words[0] ?? '').replace(/^.*\//, '');
}

/** Looking around (reading, listing, searching) fails all the time and teaches nothing about the project. */
const INSPECTION = new Set(['ls', 'cat', 'head', 'tail', 'less', 'find', 'grep', 'rg', 'ag', 'fd', 'which', 'type', 'whereis', 'echo', 'printf', 'test', '[', 'stat', 'file', 'wc', 'pwd', 'cd', 'sed', 'awk', 'tree', 'du', 'df', 'sleep', 'true', 'false', 'diff', 'cmp', 'jq', 'xargs', 'sort', 'uniq', 'cut', 'tr', 'readlink', 'realpath', 'basename', 'dirname', 'mkdir', 'touch', 'rm', 'cp', 'mv', 'ln', 'chmod', 'kill', 'pkill', 'ps', 'lsof', 'curl', 'wget', 'open', 'gh']);
/** Git's failures (a rejected push, nothing to commit, a missing branch) are about version control, not this project. */
const GIT = /^git\b/;

/**
 * The agent's own environment refusing or cutting off a command: sandbox and approval denials,
 * permissions of the harness, its timeouts, tool protocol errors, edits that did not match.
 * These are how the agent works, not facts about the project.
 */
const AGENT_MECHANICS = /sandbox|seatbelt|landlock|operation not permitted|permission denied|not approved|approval|escalat|rejected by (?:the )?user|doesn'?t want to|timed? ?out|timeout|<tool_use_error>|has not been read yet|modified since read|string to replace was not found|old_string|no changes (?:were )?made|patch (?:failed|does not apply|rejected)|hunk|interrupted|aborted by|command was killed|output truncated/i;

/** A line that names what went wrong (the exception of a traceback, a missing module, file or command). */
const CAUSE = /(?:^|\s)(?:[A-Z]\w*(?:Error|Exception|Exit)\b:?|error(?:\[\w+\])?:|fatal:|panic:|E\d{3,}|npm ERR! (?!code\b|errno\b|A complete log|Log files|\s*$))|\b(?:not found|no such file|does not exist|doesn'?t exist|cannot find|can'?t find|could not (?:find|resolve|connect|open|load)|unable to|missing|undefined (?:reference|symbol|variable|method)|is not defined|no module named|unknown (?:command|option|flag|script)|connection refused|ECONNREFUSED|ENOENT|EADDRINUSE|address already in use|undefined:)/i;
const NOT_A_CAUSE = /^(?:traceback \(most recent call last\)|exit code:? -?\d+|process exited with code|\s*at\s|\s*File ")|^\s*$/i;

/**
 * What went wrong, as one line: the last `XxxError: …` line of a traceback (the exception, not
 * its header), else the first line that names a missing module, file, command or service.
 */
export function errorCause(output: string): string | null {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !NOT_A_CAUSE.test(l));
  const exception = [...lines].reverse().find((l) => /^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?::|$)/.test(l));
  const line = exception ?? lines.find((l) => CAUSE.test(l));
  // A failing assertion is the code under work being wrong, not a fact about how the project runs.
  if (!line || /\bassert|\bexpected\b.*\b(?:to|but|got|received)\b/i.test(line)) return null;
  return capWords(line.replace(/^(?:error|fatal|npm ERR!)\s*:?\s*/i, '').replace(/^Error:\s*/, ''), 160) || null;
}

/** A command that runs a linter: its findings name the project's coding rules. */
const LINTER = /\b(?:lint|linter|golangci-lint|eslint|ruff|flake8|pylint|clippy|rubocop|stylelint|shellcheck|hadolint|biome|staticcheck|revive|ktlint|swiftlint)\b/i;
/** A linter's finding, by the common output shapes: `file:line:col: message (rule)`, `file:line:col: CODE message`, eslint's `line:col  error  message  rule`. */
const FINDINGS: [RegExp, (m: RegExpExecArray) => { rule: string; message: string }][] = [
  [/^\S+?:\d+(?::\d+)?:\s*(?:([A-Z]+\d{2,}):\s*)?(.+?)\s+\(([\w-]+)\)\s*$/, (m) => ({ rule: m[1] ? `${m[3]} ${m[1]}` : m[3], message: m[2] })],
  [/^\S+?:\d+(?::\d+)?:\s*([A-Z]+\d{2,})\s+(?:\[\*\]\s+)?(.+)$/, (m) => ({ rule: m[1], message: m[2] })],
  [/^\d+:\d+\s+(?:error|warning)\s+(.+?)\s{2,}(@?[\w/-]+)$/, (m) => ({ rule: m[2], message: m[1] })],
];

/** The first rule a lint command's output says the code broke, or null (not a linter, or no finding in a known shape). */
export function lintFinding(cmd: string, output: string): { rule: string; message: string } | null {
  if (!LINTER.test(cmd)) return null;
  for (const line of output.split('\n').map((l) => l.trim())) {
    for (const [re, read] of FINDINGS) {
      const m = re.exec(line);
      if (m) return read(m);
    }
  }
  return null;
}

/** The step of a command chain that lints (`make fmt && make lint` → `make lint`). */
function lintStep(cmd: string): string {
  return bare(cmd).split(/\s*(?:&&|;)\s*/).find((p) => LINTER.test(p)) ?? short(cmd);
}

function isFailure(r: TranscriptMessage): boolean {
  if (r.kind !== 'tool_result') return false;
  if (r.isError !== undefined) return r.isError;
  return /^(?:error\b|fatal\b|\w*error:|traceback|npm err!|.*: command not found)/im.test(r.text.split('\n').slice(0, 3).join('\n'));
}

function resultOf(messages: TranscriptMessage[], call: number): TranscriptMessage | undefined {
  for (let j = call + 1; j < messages.length && j <= call + 3; j++) if (messages[j].kind === 'tool_result') return messages[j];
  return undefined;
}

/** A command without what only shapes its output (`2>&1`, `| tail`, `| head`, `| grep …`). */
function bare(cmd: string): string {
  return cmd.replace(/\s*\|\s*(?:head|tail|grep|less|cat|tee|sort|wc)\b[^|]*/g, '').replace(/\s*2>&1/g, '').trim();
}

/** The words that say what a command does: its program, then its arguments but flags. */
function jobWords(cmd: string): string[] {
  const words = bare(cmd).split(/\s*(?:&&|;)\s*/).filter((p) => !/^cd\s/.test(p))[0]?.split(/\s+/) ?? [];
  return words.filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w) && !['sudo', 'time', 'env', 'npx', 'exec'].includes(w) && !w.startsWith('-'));
}

/** Two commands that do the same job: the same program and subcommand, and most of the same words. */
function sameJob(a: string, b: string): boolean {
  const wa = jobWords(a);
  const wb = jobWords(b);
  if (wa.length === 0 || program(a) !== program(b) || wa[1] !== wb[1]) return false;
  const set = new Set(wa);
  return wb.filter((w) => set.has(w)).length / Math.max(wa.length, wb.length) >= 0.5;
}

/** A command as a title names it: without what only shapes its output. */
function short(cmd: string): string {
  return bare(cmd) || cmd;
}

/** The fix as a title, with the cause when it fits whole (the body always has it). */
function withCause(fix: string, cause: string): string {
  const full = `${fix}: ${cause}`;
  return cleanTitle(full.length <= 90 ? full : fix);
}

function tick(cmd: string, n = 80): string {
  return `\`${capWords(cmd.replace(/`/g, "'"), n)}\``;
}

/**
 * A project command that failed and what then made it work: another command run before the same
 * job succeeded ("run X before Y"), or the same job run differently ("use Y', not Y"). Edits
 * alone in between mean the agent fixed its own code: not a learning. The agent's mechanics and
 * inspection commands never count.
 */
function errorFixes(messages: TranscriptMessage[]): Learning[] {
  const out: Learning[] = [];
  for (let i = 0; i < messages.length && out.length < MAX_ERROR_FIXES; i++) {
    const call = messages[i];
    if (call.kind !== 'tool_use') continue;
    const cmd = shellCommand(call.text);
    const res = resultOf(messages, i);
    if (!cmd || !res || !isFailure(res) || AGENT_MECHANICS.test(res.text.slice(0, 2000))) continue;
    const prog = program(cmd);
    if (!prog || INSPECTION.has(prog) || GIT.test(cmd.replace(/^cd\s+\S+\s*&&\s*/, ''))) continue;
    const lint = lintFinding(cmd, res.text);
    const cause = errorCause(res.text) ?? (lint && `${lint.message} (${lint.rule})`);
    if (!cause) continue;
    // A lint failure inside a chain ("make fmt && make lint") is fixed when the lint step passes.
    const job = lint ? lintStep(cmd) : cmd;
    // Look ahead for the same job succeeding, and note what ran in between.
    const between: string[] = [];
    let edited = false;
    for (let j = i + 1; j < messages.length && j <= i + 30; j++) {
      const m = messages[j];
      if (m.kind !== 'tool_use') continue;
      const c = shellCommand(m.text);
      const r = resultOf(messages, j);
      const ok = r !== undefined && !isFailure(r) && !REFUSED.test(r.text);
      if (c === null) {
        if (/^(?:Edit|MultiEdit|Write|NotebookEdit|apply_patch|str_replace|edit|write|replace|create_file)/.test(toolName(m.text))) edited = true;
        continue;
      }
      if (sameJob(job, c)) {
        if (!ok) continue;
        const fixes = between.filter((b) => !INSPECTION.has(program(b)) && !GIT.test(b) && !sameJob(cmd, b));
        let l: Learning | null = null;
        if (bare(c) !== bare(cmd) && !edited) {
          l = {
            scope: 'corrective', type: 'corrective', importance: 0.4,
            title: withCause(`Use ${tick(c, 50)}, not ${tick(short(cmd), 40)}`, cause),
            body: `${tick(cmd, 200)} failed with: ${capWords(cause, 200)}\n\nWhat worked: ${tick(c, 240)}`,
          };
        } else if (fixes.length > 0 && !edited) {
          const fix = fixes[fixes.length - 1];
          l = {
            scope: 'corrective', type: 'corrective', importance: 0.4,
            title: withCause(`Run ${tick(fix, 40)} before ${tick(short(cmd), 40)}`, cause),
            body: `${tick(cmd, 200)} failed with: ${capWords(cause, 200)}\n\nWhat fixed it: ${tick(fix, 240)}, then ${tick(c, 120)} worked.`,
          };
        } else if (edited && lint) {
          // The code was changed until the linter passed: the rule it enforces is the project's.
          l = {
            scope: 'corrective', type: 'corrective', importance: 0.4,
            title: cleanTitle(shorten(`${tick(lintStep(cmd), 40)} flags ${lint.rule}: ${lint.message}`, 90)),
            body: `${tick(cmd, 200)} failed with: ${capWords(cause, 200)}\n\nThe code was changed to satisfy it, then ${tick(c, 120)} passed.`,
          };
        }
        if (l) out.push(l);
        i = j;
        break;
      }
      if (ok) between.push(c);
    }
  }
  return out;
}

const MAX_ERROR_FIXES = 5;

// ---------------------------------------------------------------------------------------------

function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim().replace(/^[-*>\d.)\s]+/, ''))
    .filter((s) => s.length >= 12 && s.length <= 400 && !/[{}<>|=]{3,}|^\$ |^\u276f/.test(s));
}

function excerpt(s: string, n: number): string {
  return shorten(s, n);
}

function toolName(call: string): string {
  return call.slice(0, Math.max(0, call.indexOf('('))) || call.slice(0, 30);
}

/** The command the agent had just run before message `i`, if its last act was a shell command. */
function lastCommand(messages: TranscriptMessage[], i: number): string | null {
  for (let j = i - 1; j >= 0 && j >= i - 6; j--) {
    const m = messages[j];
    if (m.role === 'assistant' && m.kind === 'text') return null;
    if (m.kind === 'tool_use') return shellCommand(m.text);
  }
  return null;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** What no learning may carry: a raw tool call, a transcript's own path. */
function unsafe(l: Learning): boolean {
  const t = `${l.title}\n${l.body}`;
  return /\b\w+\(\{"|\{"[\w-]+":/.test(t) || /\S+\.jsonl\b/.test(t);
}

/** The rule made to stand alone from the sentences before it (its pronoun resolved), when it is a whole clause; else null. */
function wholeStandalone(rule: string, before: readonly string[]): string | null {
  const s = standalone(rule, before);
  return s !== null && isWholeClause(s) ? s : null;
}

/** A rule and its title (a whole clause within 90 characters), both standing alone; null when they cannot. */
function ruleAndTitle(said: string, before: readonly string[]): { rule: string; title: string } | null {
  const rule = wholeStandalone(said, before);
  if (!rule) return null;
  // The title may be a clause whose referent is elsewhere in the rule ("…, that's why we add it").
  const title = standalone(clauseTitle(rule, 90, isWholeClause), [...before, rule]);
  return title ? { rule, title: cleanTitle(title) } : null;
}

/** The sentences of the human's message just before message `i`, when the human wrote twice in a row. */
function previousHuman(messages: TranscriptMessage[], i: number): string[] {
  for (let j = i - 1; j >= 0; j--) {
    const m = messages[j];
    if (isHumanText(m)) return sentences(m.text);
    if (m.kind === 'text' || m.kind === 'tool_use') return [];
  }
  return [];
}

/**
 * What "remember this" stands for: the statements just before the request (up to three, back to
 * the first question), the nearest one that reads as a whole, standalone rule giving the title.
 */
function keptBefore(before: readonly string[]): { title: string; said: string } | null {
  const run: string[] = [];
  for (let j = before.length - 1; j >= 0 && run.length < 3; j--) {
    const s = before[j].replace(LEAD, '');
    if (/\?\s*$/.test(s)) break;
    run.unshift(s);
  }
  for (let j = run.length - 1; j >= 0; j--) {
    const r = ruleAndTitle(run[j], [...before.slice(0, before.length - run.length), ...run.slice(0, j)]);
    if (r) return { title: r.title, said: run.join(' ') };
  }
  return null;
}

/** "Remember this: the rule": the rule after the colon. */
function keptAhead(rule: string, before: readonly string[]): { title: string; said: string } | null {
  const r = ruleAndTitle(rule.replace(/^(?:that|to)\s+/i, ''), before);
  return r ? { title: r.title, said: rule } : null;
}

export function heuristicLearnings(messages: TranscriptMessage[], scopes: readonly ExtractionScopeName[]): Learning[] {
  const want = new Set(scopes);
  const out: Learning[] = [];
  const seen = new Set<string>();
  const add = (l: Learning): boolean => {
    // A transcript may hold control characters (a NUL); no learning carries them.
    l = { ...l, title: l.title.replace(CONTROL, ''), body: l.body.replace(CONTROL, '') };
    const key = l.title.toLowerCase().replace(/[^\w]+/g, ' ').trim();
    if (!want.has(l.scope) || seen.has(key) || unsafe(l)) return false;
    seen.add(key);
    out.push({ ...l, body: safeBody(l.body) });
    return true;
  };
  let interruptedAt = -1;
  messages.forEach((m, i) => {
    if ((m.role === 'user' && INTERRUPTED.test(m.text) && !m.instruction) || (m.kind === 'tool_result' && REFUSED.test(m.text))) {
      interruptedAt = i;
      if (!m.text.replace(INTERRUPTED, '').trim()) return;
    }
    if (!isHumanText(m)) return;
    const text = m.text.replace(INTERRUPTED, '').trim();
    if (!text) return;
    const said = sentences(text);
    const interrupted = interruptedAt >= 0 && i - interruptedAt <= 2;
    interruptedAt = -1;
    // A correction: the first sentence that states a rule becomes its title; the human's words are the evidence.
    let used = -1;
    // A correction answers something the agent did: there must be an act of the agent before it.
    const answers = messages.slice(0, i).some((x) => x.role === 'assistant' && (x.kind === 'text' || x.kind === 'tool_use'));
    if ((interrupted || CORRECTION.test(text)) && !NOT_A_CORRECTION.test(text) && answers) {
      for (let k = 0; k < Math.min(2, said.length); k++) {
        const stated = correctionRule(said[k]);
        // correctionRule checked the clause is whole (before capping it): only its pronouns are left to resolve.
        const rule = stated && standalone(stated, said.slice(0, k));
        if (!rule) continue;
        const cmd = lastCommand(messages, i);
        // The human's words are the evidence (the gate judges the rule, not the quote).
        const evidence = withEvidence(`${interrupted ? 'The human stopped the agent' : 'The human corrected the agent'}${cmd ? ` after it ran ${tick(cmd, 80)}` : ''}.`, excerpt(text, 300));
        const l = { type: 'corrective' as const, importance: 0.5, title: cleanTitle(rule), body: evidence };
        for (const scope of [interrupted ? 'interventions' : 'corrective', 'corrective', 'project'] as const) if (add({ ...l, scope })) break;
        used = k;
        break;
      }
    }
    said.forEach((s, k) => {
      if (k === used) return;
      const core = s.replace(LEAD, '');
      const before = said.slice(0, k);
      const keep = KEEP_THIS.exec(core);
      if (keep) {
        const ahead = KEEP_WHAT_FOLLOWS.exec(core.slice(keep.index + keep[0].length));
        const kept = ahead ? keptAhead(ahead[1], before) : keptBefore(k > 0 ? before : previousHuman(messages, i));
        if (kept) add({ scope: 'project', type: 'directive', importance: 0.5, title: kept.title, body: withEvidence(excerpt(kept.said, 400), excerpt(s, 300)) });
        return;
      }
      if (/\?\s*$/.test(core)) return; // a question is not a rule
      if (REMEMBER.test(core) || ALWAYS_NEVER.test(core) || DONT.test(core)) {
        const said = core.replace(LEAD_IN, '');
        const r = ruleAndTitle(said, before);
        if (!r) return;
        // A rule whose pronoun was resolved keeps the sentences it was resolved from.
        const about = r.rule !== said ? `\n\nSaid about: "${excerpt(before.slice(-2).join(' '), 300)}"` : '';
        add({ scope: 'project', type: 'directive', importance: 0.4, title: r.title, body: `${excerpt(s, 400)}${about}` });
      } else if (PREFER.test(core)) {
        const r = ruleAndTitle(mainClause(core), before);
        // Without the observations scope, the preference is still the project's rule for the agent.
        const l = r && { type: 'declarative' as const, importance: 0.4, title: r.title, body: withEvidence('A preference the human stated.', excerpt(s, 300)) };
        if (l) for (const scope of ['observations', 'project'] as const) if (add({ ...l, scope })) break;
      } else {
        // "This should not change, only the X flag should …": the exclusive rule, as its own clause.
        const clause = core.split(/\s*[;,]\s+/).find((c) => ONLY.test(c));
        const r = clause && ruleAndTitle(clause, before);
        if (r) add({ scope: 'project', type: 'directive', importance: 0.4, title: r.title, body: withEvidence('A rule the human stated.', excerpt(s, 300)) });
      }
    });
  });
  for (const l of errorFixes(messages)) add(l);
  return out;
}
