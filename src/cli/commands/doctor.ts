// `mem doctor`: is this machine and vault in working order? Node, SQLite/FTS5, the vault,
// the index, .gitignore, stale locks, which LLM provider (if any) is configured, and which
// agent hooks are installed.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { memBin } from '../../package.js';

import { commandCtx, type Ctx } from '../io.js';

type Status = 'ok' | 'warn' | 'fail';
interface Check {
  name: string;
  status: Status;
  detail: string;
  hint?: string;
  /** The llm check: the provider in use, its model, why it was chosen, and an agent CLI's executable. */
  provider?: string;
  model?: string;
  source?: string;
  command?: string;
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the environment, the vault and the index (exit 1 if something is broken)')
    .option('--fix', 'move episodes\' messages out of committed files into .mem/local/ (git-ignored), unless episodes.share_messages is true')
    .addHelpText('after', `
Examples:
  $ mem doctor
  $ mem doctor --json | jq '.checks[] | select(.status != "ok")'
  $ mem doctor --json | jq '.checks[] | select(.name == "llm") | {provider, source}'   # which model, and why
  $ mem doctor --fix        # episodes' messages found in .mem/episodes/ move to .mem/local/episodes/`)
    .action(async (opts: { fix?: boolean }, command: Command) => {
      await doctorCommand(commandCtx(command), opts);
    });
}

function findLocks(readDir: (dir: string) => fs.Dirent[], dir: string, out: string[], depth = 0): void {
  if (depth > 6) return;
  for (const e of readDir(dir)) {
    if (e.isDirectory()) {
      if (e.name === 'node_modules' || e.name === '.git') continue;
      findLocks(readDir, path.join(dir, e.name), out, depth + 1);
    } else if (/^\..+\.md\.lock$/.test(e.name)) out.push(path.join(dir, e.name));
  }
}

async function doctorCommand(ctx: Ctx, opts: { fix?: boolean } = {}): Promise<void> {
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({ name: 'node', status: major >= 20 ? 'ok' : 'fail', detail: `Node ${process.versions.node}`, hint: major >= 20 ? undefined : 'mem needs Node 20 or newer' });
  try {
    const v = (await import('../../index/stats.js')).sqliteWithFts5();
    checks.push({ name: 'sqlite', status: 'ok', detail: `SQLite ${v} with FTS5` });
  } catch (err) {
    checks.push({ name: 'sqlite', status: 'fail', detail: (err as Error).message.split('\n')[0], hint: 'reinstall: npm ci (better-sqlite3 builds from source)' });
  }
  let vault;
  try {
    const { openVault } = await import('../../vault/vault.js');
    vault = await openVault({ root: ctx.root, cwd: ctx.cwd, env: ctx.env });
    checks.push({ name: 'vault', status: 'ok', detail: vault.root });
    checks.push({ name: 'config', status: 'ok', detail: fs.existsSync(path.join(vault.root, '.mem/config.yaml')) ? '.mem/config.yaml' : 'defaults (no .mem/config.yaml)' });
  } catch (err) {
    checks.push({ name: 'vault', status: 'fail', detail: (err as Error).message, hint: (err as { hint?: string }).hint });
  }
  if (vault) {
    const { discoverFiles, skipNotices } = await import('../../vault/vault.js');
    const files = discoverFiles(vault);
    checks.push({ name: 'files', status: files.length > 0 ? 'ok' : 'warn', detail: `${files.length} memory files`, hint: files.length > 0 ? undefined : 'run mem init, or mem add' });
    // Memory files under a case variant of their name: not read (or read only on this machine).
    {
      const { misnamedMemoryFiles, misnamedMessage } = await import('../../vault/misnamed.js');
      const wrong = misnamedMemoryFiles(vault, files);
      if (wrong.length > 0) checks.push({ name: 'names', status: 'warn', detail: wrong.map((m) => `${m.path}: ${misnamedMessage(m)}`).join('; '), hint: `mem reads exactly MEMORY.md, institutional.md, proxy.md and dispatch.md (case matters)` });
    }
    // The vault's edges: links out of it that the walk skipped, folders it could not list, memory
    // files that are not regular files (a FIFO, a folder), each named.
    const skipped = skipNotices(vault);
    if (skipped.length > 0) {
      const hints = [
        skipped.some((n) => n.startsWith('skipped ')) && 'mem never follows a link out of the vault',
        skipped.some((n) => n.startsWith('cannot list')) && 'give mem read access to the folders it cannot list',
        skipped.some((n) => n.includes(' is not a regular file (')) && 'put a markdown file in its place, or move it away',
      ].filter(Boolean);
      checks.push({ name: 'skipped', status: 'warn', detail: skipped.join('; '), hint: hints.join('; ') });
    }
    // Files of killed `mem index --rebuild` runs (as big as the index each): reported, then
    // removed, as every open of the index does; a rebuild still running is left alone.
    {
      const { rebuildLeftovers, removeRebuildLeftovers } = await import('../../index/db.js');
      const seen = rebuildLeftovers(vault.dbPath);
      const removed = new Set(removeRebuildLeftovers(vault.dbPath).map((l) => l.file));
      const dead = seen.filter((l) => !l.live);
      const kept = dead.filter((l) => !removed.has(l.file));
      const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
      const names = (ls: typeof seen) => ls.map((l) => `${path.basename(l.file)} (${mb(l.bytes)})`).join(', ');
      if (kept.length > 0) checks.push({ name: 'rebuild files', status: 'warn', detail: `left by killed rebuilds: ${names(kept)}`, hint: `could not remove them; delete them by hand` });
      else if (dead.length > 0) checks.push({ name: 'rebuild files', status: 'warn', detail: `removed what killed rebuilds left: ${names(dead)}` });
      const live = seen.filter((l) => l.live);
      if (live.length > 0) checks.push({ name: 'rebuild files', status: 'ok', detail: `a rebuild is running (pid ${[...new Set(live.map((l) => l.pid))].join(', ')})` });
    }
    if (!fs.existsSync(vault.dbPath)) {
      checks.push({ name: 'index', status: 'warn', detail: 'no .memory.db yet', hint: 'run mem index (mem search builds it too)' });
    } else {
      try {
        const { SCHEMA_VERSION, forgetIndexFile, openDatabase, quickCheck } = await import('../../index/db.js');
        const db = openDatabase(vault.dbPath, { readonly: true });
        // Always the whole file: damage that left the file's stat as it was (a failing disk) is
        // found nowhere else before a query meets it.
        const qc = quickCheck(db);
        // Failed: the next mem command checks it too, and rebuilds it.
        if (qc !== 'ok') forgetIndexFile(vault.dbPath);
        const { brokenFileCount, schemaVersionOf } = await import('../../index/stats.js');
        const ver = schemaVersionOf(db);
        const n = (await import('../../index/indexer.js')).countEntries(db);
        const broken = brokenFileCount(db);
        // Files left mid-merge: named with the line of their first conflict marker.
        const conflicted = [...(await import('../../index/indexer.js')).readConflicts(db)].map(([f, l]) => `${f}:${l}`);
        db.close();
        let stale = 0;
        // A corrupt index is left for mem index to rebuild; a sound one was just checked.
        if (qc === 'ok') {
          const { openIndex } = await import('../../index/db.js');
          const { planRefresh, staleCount } = await import('../../index/indexer.js');
          const ix = openIndex(vault.dbPath, { checked: true });
          stale = staleCount(planRefresh(ix.db, vault));
          ix.db.close();
        }
        if (qc !== 'ok') checks.push({ name: 'index', status: 'fail', detail: `integrity: ${qc}`, hint: 'run mem index (it rebuilds the index from the markdown)' });
        else if (ver !== SCHEMA_VERSION) checks.push({ name: 'index', status: 'warn', detail: `schema ${ver} (this mem uses ${SCHEMA_VERSION})`, hint: 'it is rebuilt on the next search; or run mem index --rebuild' });
        else checks.push({ name: 'index', status: stale > 0 ? 'warn' : 'ok', detail: `${n} entries${stale > 0 ? `, ${stale} files changed since indexing` : ', up to date'}`, hint: stale > 0 ? 'run mem index' : undefined });
        if (broken > 0) checks.push({ name: 'broken files', status: 'warn', detail: `${broken} file(s) skipped or partly skipped`, hint: 'run mem lint to see where' });
        if (conflicted.length > 0) checks.push({ name: 'git conflicts', status: 'fail', detail: `unresolved conflict markers in ${conflicted.join(', ')}`, hint: 'resolve the conflict first (git mergetool, or mem resolve); mem will not write these files until then' });
      } catch (err) {
        const { indexError, indexFault } = await import('../../index/db.js');
        const e = indexFault(err) !== null ? indexError(vault.dbPath, err) : undefined;
        const detail = e ? e.message : err instanceof Error ? err.message.split('\n')[0] : String(err);
        checks.push({ name: 'index', status: 'fail', detail, hint: indexFault(err) === 'corrupt' ? 'run mem index (it rebuilds the index from the markdown)' : e?.hint ?? 'run mem index --rebuild' });
      }
    }
    const gi = path.join(vault.root, '.gitignore');
    const { readRegular } = await import('../../vault/read.js');
    const { readTarget } = await import('../../vault/boundary.js');
    let giText: string | null = null;
    try {
      giText = readRegular(readTarget(gi, '.gitignore', [vault.root]), 1 << 20);
    } catch {
      giText = null;
    }
    const ignored = giText !== null && giText.split(/\r?\n/).some((l) => l.trim().startsWith('.memory.db'));
    if (fs.existsSync(path.join(vault.root, '.git'))) {
      checks.push({ name: 'gitignore', status: ignored ? 'ok' : 'warn', detail: ignored ? '.memory.db* is ignored' : '.memory.db is not in .gitignore', hint: ignored ? undefined : 'run mem init (it adds the line)' });
      checks.push(await (await import('../../integrations/merge-setup.js')).mergeDriverCheck(vault.root));
    }
    // Git hooks (mem hooks install --git): optional, so never a failure; an outdated block is a warning.
    try {
      const { hooksStatus, GIT_HOOKS } = await import('../../integrations/git-hooks.js');
      const { realpathSync } = fs;
      const js = memBin();
      const real = (p: string) => { try { return realpathSync(p); } catch { return p; } };
      const r = hooksStatus(vault.root, vault.root, { node: real(process.execPath), js: real(js) }, ctx.env);
      const with_ = r.hooks.filter((h) => h.state === 'installed' || h.state === 'outdated');
      const outdated = r.hooks.filter((h) => h.state === 'outdated' || (h.mem !== null && !h.points_here));
      checks.push({
        name: 'git hooks',
        status: outdated.length > 0 ? 'warn' : 'ok',
        detail: with_.length === 0 ? `none installed (${GIT_HOOKS.join(', ')})` : r.hooks.map((h) => `${h.hook} ${h.state}`).join(', '),
        hint: outdated.length > 0 ? 'run mem hooks install --git (it rewrites mem\'s block for this mem)' : with_.length === 0 ? 'optional: mem hooks install --git' : undefined,
      });
    } catch {
      // not a git repository, or git missing: nothing to say about git hooks
    }
    checks.push(await episodeMessagesCheck(vault.root, vault.config.episodes.shareMessages, Boolean(opts.fix)));
    const locks: string[] = [];
    const { readDir } = await import('../../vault/vault.js');
    findLocks(readDir, vault.root, locks);
    checks.push({ name: 'locks', status: locks.length > 0 ? 'warn' : 'ok', detail: locks.length > 0 ? `lock files present: ${locks.map((l) => path.relative(vault.root, l)).join(', ')}` : 'no write locks held', hint: locks.length > 0 ? 'if no mem process is running, delete them' : undefined });
    checks.push({ name: 'global', status: 'ok', detail: `${vault.home}${fs.existsSync(path.join(vault.home, 'MEMORY.md')) ? ' (MEMORY.md present)' : ' (no global MEMORY.md)'}` });
    checks.push(await watchCheck(vault.root));
  }
  checks.push(await agentHooksCheck(ctx, vault?.root ?? null));
  try {
    const { resolveProviderConfig } = await import('../../llm/provider.js');
    const { urlForDisplay } = await import('../../secrets/rules.js');
    const llm = vault?.config.llm;
    const p = resolveProviderConfig(ctx.env, { provider: llm?.provider, providerSource: '.mem/config.yaml', configModel: llm?.model, configBaseUrl: llm?.baseUrl, agentCli: llm?.agentCli });
    const missingKey = p.apiKeyEnv && !ctx.env[p.apiKeyEnv] && !(p.name === 'openai' && p.baseUrl);
    const { isAgentCli } = await import('../../llm/provider-api.js');
    const cli = isAgentCli(p.name);
    const missingCli = cli && !p.command;
    const where = cli ? (p.command ? `; runs ${p.command}` : '; its command is not on PATH') : '';
    checks.push({
      name: 'llm',
      status: missingKey || missingCli ? 'warn' : 'ok',
      detail: p.name === 'heuristic' ? `none configured: mem extract uses offline heuristics (search needs no LLM) (${p.source})` : `${p.name} ${p.model}${p.baseUrl ? ` at ${urlForDisplay(p.baseUrl)}` : ''} (${p.source}${where})`,
      hint: missingKey ? `set ${p.apiKeyEnv}` : missingCli ? 'install the agent, or choose another provider (llm.provider / MEM_PROVIDER)' : cli && !llm?.provider && !ctx.env.MEM_PROVIDER ? 'each extraction uses your agent subscription; MEM_AGENT_CLI=0 or llm.agent_cli: false keeps mem offline' : undefined,
      // What chose it, for scripts: the same words as in the detail.
      provider: p.name, model: p.model, source: p.source, ...(p.command ? { command: p.command } : {}),
    });
  } catch (err) {
    checks.push({ name: 'llm', status: 'fail', detail: (err as Error).message, hint: (err as { hint?: string }).hint });
  }

  const failed = checks.some((c) => c.status === 'fail');
  if (ctx.json) ctx.out(JSON.stringify({ ok: !failed, checks }, null, 2));
  else {
    const mark: Record<Status, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };
    for (const c of checks) {
      ctx.out(`${mark[c.status]}  ${c.name.padEnd(12)} ${c.detail}${c.hint ? `\n      ${''.padEnd(12)} hint: ${c.hint}` : ''}`);
    }
  }
  if (failed) ctx.setExitCode(1);
}

/**
 * Where episodes' messages are: committed files that hold them (an older mem wrote them so) are
 * a warning unless `episodes.share_messages` says to share them; `fix` moves them to the local store.
 */
async function episodeMessagesCheck(root: string, share: boolean, fix: boolean): Promise<Check> {
  const { findSharedMessages, moveMessagesLocal, LOCAL_EPISODES_DIR } = await import('../../episodes/local.js');
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const found = findSharedMessages(root);
  const episodes = found.reduce((n, f) => n + f.episodes, 0);
  const bytes = found.reduce((n, f) => n + f.bytes, 0);
  const names = (fs_: string[]) => (fs_.length > 3 ? `${fs_.slice(0, 3).join(', ')} and ${fs_.length - 3} more` : fs_.join(', '));
  if (found.length === 0) return { name: 'episodes', status: 'ok', detail: share ? 'messages shared in .mem/episodes/ (episodes.share_messages: true); none there yet' : `messages kept in ${LOCAL_EPISODES_DIR}/ (not committed)` };
  if (share) return { name: 'episodes', status: 'ok', detail: `messages of ${episodes} episodes shared in committed files (episodes.share_messages: true), ${kb(bytes)}` };
  if (fix) {
    const moved = moveMessagesLocal(root);
    const left = moved.skipped.length > 0 ? `; left alone: ${moved.skipped.join('; ')}` : '';
    return {
      name: 'episodes',
      status: moved.skipped.length > 0 ? 'warn' : 'ok',
      detail: `moved the messages of ${moved.episodes} episodes (${kb(moved.bytes)}) from ${names(moved.files)} to ${LOCAL_EPISODES_DIR}/${left}`,
      hint: 'commit the change; earlier commits still hold the messages until the history is rewritten',
    };
  }
  return {
    name: 'episodes',
    status: 'warn',
    detail: `${found.length} committed episode file(s) hold the messages of ${episodes} episodes (${kb(bytes)} of transcript): ${names(found.map((f) => f.path))}`,
    hint: `run mem doctor --fix to move them to ${LOCAL_EPISODES_DIR}/ (git-ignored), or set episodes.share_messages: true in .mem/config.yaml to share them`,
  };
}

/**
 * Agent hooks (mem hooks install --claude/--codex/--gemini) and MCP registrations, at user level
 * and in this vault: optional, so never a failure; one that runs another mem or cannot be read warns.
 */
async function agentHooksCheck(ctx: Ctx, root: string | null): Promise<Check> {
  try {
    const { agentStatus, AGENTS } = await import('../../integrations/agents/agents.js');
    const js = memBin();
    const real = (p: string) => { try { return fs.realpathSync(p); } catch { return p; } };
    const me = { node: real(process.execPath), js: real(js) };
    const { pluginState } = await import('../../integrations/agents/plugins.js');
    const seen: string[] = [];
    const bad: string[] = [];
    const twice: string[] = [];
    for (const agent of AGENTS) {
      const plugin = await pluginState(agent, [ctx.cwd, ...(root ? [root] : [])], ctx.env);
      if (plugin.enabled) seen.push(`${agent}: mem plugin enabled`);
      for (const scope of root ? (['user', 'project'] as const) : (['user'] as const)) {
        const s = await agentStatus(agent, scope, root, me, ctx.env);
        // The plugin and mem hooks install's entries would both fire; the entries stand aside at run time.
        if (plugin.enabled && s.state !== 'missing' && s.state !== 'error') twice.push(`--${agent}${scope === 'user' ? ' --user' : ''}`);
        const parts: string[] = [];
        if (s.state !== 'missing') parts.push(`hooks ${s.state}`);
        if (s.notify && s.notify.state !== 'missing') parts.push(`notify ${s.notify.state}`);
        if (s.mcp.state !== 'missing') parts.push(`mcp ${s.mcp.state}`);
        if (parts.length === 0) continue;
        seen.push(`${agent} ${scope}: ${parts.join(', ')}`);
        if (s.state === 'outdated' || s.state === 'error' || s.state === 'partial' || ['outdated', 'error'].includes(s.mcp.state) || ['outdated', 'error'].includes(s.notify?.state ?? '')) bad.push(`--${agent}${scope === 'user' ? ' --user' : ''}`);
      }
    }
    if (seen.length === 0) return { name: 'agent hooks', status: 'ok', detail: 'none installed (Claude Code, Codex, Gemini CLI)', hint: 'optional: mem hooks install --claude (or --codex, --gemini; --user for every project)' };
    if (twice.length > 0) {
      return {
        name: 'agent hooks',
        status: 'warn',
        detail: `both mem's plugin and mem hooks install's entries are installed (${twice.map((t) => t.slice(2)).join(', ')}): the entries stand aside while the plugin is enabled; ${seen.join('; ')}`,
        hint: `keep one: ${twice.map((t) => `mem hooks uninstall ${t}`).join(', ')} (or turn the plugin off)`,
      };
    }
    return {
      name: 'agent hooks',
      status: bad.length > 0 ? 'warn' : 'ok',
      detail: seen.join('; '),
      hint: bad.length > 0 ? `run ${bad.map((b) => `mem hooks install ${b}`).join(', ')} (it rewrites mem's entries for this mem; mem hooks status shows the details)` : undefined,
    };
  } catch (err) {
    return { name: 'agent hooks', status: 'warn', detail: (err as Error).message };
  }
}

/** Whether reads of this vault can ask a running `mem watch` instead of stat-ing every file. */
async function watchCheck(root: string): Promise<Check> {
  const { vouchFiles, watcherPid } = await import('../../index/vouch.js');
  const files = vouchFiles(root);
  if (files === null) return { name: 'watch', status: 'ok', detail: 'reads check every file (a running mem watch answers for them on Linux only)' };
  const pid = watcherPid(files.pidFile);
  return pid !== null
    ? { name: 'watch', status: 'ok', detail: `mem watch (pid ${pid}) answers reads whether the index is fresh` }
    : { name: 'watch', status: 'ok', detail: 'no mem watch running: reads check every file', hint: 'mem watch keeps the index fresh and spares reads that check' };
}
