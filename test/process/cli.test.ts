// The built CLI as a process: a spinner on a real terminal, the rebuild's parse worker (a script
// of the build, dist/parse-worker.js), and standard output through a real pipe that the reader
// closes early (`mem … | head`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, mem, tempVault } from '../helpers.js';

afterEach(cleanup);

// A real pseudo-terminal (python's pty module) with a window size, as a user's terminal has.
const PTY = `
import pty, os, sys, fcntl, termios, struct
args = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack('HHHH', 40, 100, 0, 0))
    os.execvp(args[0], args)
out = b''
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode('utf-8', 'replace'))
sys.exit(os.waitstatus_to_exitcode(status))
`;

describe('progress', () => {
  it('shows a spinner on a terminal for long indexing, and nothing when piped or --quiet', async () => {
    const { spawnSync } = await import('node:child_process');
    const { BIN } = await import('../helpers.js');
    const v = tempVault();
    for (let i = 0; i < 150; i++) v.write(`memory/f${i}.md`, entry(`e${i}`, `## Entry ${i}\ntext ${i}`));
    const env = { ...process.env, MEM_HOME: v.home };
    const tty = spawnSync('python3', ['-c', PTY, process.execPath, BIN, 'index'], { cwd: v.root, env, encoding: 'utf8', timeout: 100_000 });
    expect(tty.status).toBe(0);
    // Animated on a terminal; under CI=true ora prints the line once instead.
    expect(tty.stdout).toMatch(/indexing \d+\/150 files/);
    expect(tty.stdout).toContain('150 entries');
    v.write('memory/f0.md', entry('e0', 'changed'));
    const quiet = spawnSync('python3', ['-c', PTY, process.execPath, BIN, 'index', '--rebuild', '--quiet'], { cwd: v.root, env, encoding: 'utf8', timeout: 100_000 });
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).not.toContain('indexing');
    const piped = mem(['index', '--rebuild'], { cwd: v.root, home: v.home });
    expect(piped.stderr).not.toContain('indexing');
  });
});

describe('terminal or not', () => {
  it('colours search results on a terminal only, and a piped search loads no stream module', async () => {
    const { BIN } = await import('../helpers.js');
    const v = tempVault();
    v.write('memory/a.md', entry('a1', '## Deploys\nDeploys need the VPN.'));
    const env: NodeJS.ProcessEnv = { ...process.env, MEM_HOME: v.home, NO_COLOR: '' };
    delete env.FORCE_COLOR;
    const tty = spawnSync('python3', ['-c', PTY, process.execPath, BIN, 'search', 'vpn'], { cwd: v.root, env, encoding: 'utf8', timeout: 100_000 });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain('Deploys');
    expect(tty.stdout).toContain('\x1b[');
    // A preloaded script reports the built-in modules loaded by the end (written to the descriptor,
    // since process.stderr would load the stream modules itself).
    const probe = path.join(v.root, 'probe.cjs');
    fs.writeFileSync(probe, "process.on('exit', () => require('node:fs').writeSync(2, `\\nloaded: ${process.moduleLoadList.filter((m) => /^NativeModule (net|tty|stream)$/.test(m)).join(',')}\\n`));\n");
    for (const args of [['search', 'vpn'], ['search', 'vpn', '--json']]) {
      const piped = spawnSync(process.execPath, ['-r', probe, BIN, ...args], { cwd: v.root, env, encoding: 'utf8', timeout: 100_000 });
      expect(piped.status).toBe(0);
      expect(piped.stdout).toContain('Deploys');
      expect(piped.stdout).not.toContain('\x1b[');
      expect(piped.stderr).toMatch(/\nloaded: \n/);
    }
  });
});

describe('mem index --rebuild with the parse worker', () => {
  it('builds the same index as the incremental path, warnings included', async () => {
    const { default: Database } = await import('better-sqlite3');
    const v = tempVault();
    for (let i = 0; i < 120; i++) {
      const body = Array.from({ length: 5 }, (_, k) => entry(`e-${i}-${k}`, `## Learning ${i}.${k}\n\nUse the cache layer ${i} with key ${k * 7}; it expires after ${k + 1} minutes.`)).join('');
      v.write(`memory/area-${i % 7}/notes-${i}.md`, `# Notes ${i}\n\n${body}`);
    }
    v.write('memory/broken.md', '# Broken\n\n---\nid: b1\ntype: [oops\n---\nbody\n');
    const dump = () => {
      const db = new Database(path.join(v.root, '.memory.db'), { readonly: true });
      try {
        const rows = db.prepare(`SELECT e.entry_id, e.path, e.ordinal, e.line, e.kind, e.scope, e.learning_type, e.type, e.title, e.body, e.content_hash, e.fts_hash, e.row_hash, e.metadata_json
          FROM entries e ORDER BY e.path, e.ordinal`).all();
        const fts = db.prepare("SELECT count(*) AS n FROM entries_fts WHERE entries_fts MATCH 'cache'").get();
        return { rows, fts };
      } finally {
        db.close();
      }
    };
    const inc = mem(['index'], { cwd: v.root, home: v.home });
    expect(inc.status).toBe(0);
    const incremental = dump();
    const rb = mem(['index', '--rebuild'], { cwd: v.root, home: v.home });
    expect(rb.status).toBe(0);
    expect(rb.stderr).toMatch(/memory\/broken\.md/);
    expect(rb.stdout).toMatch(/121 files/);
    const rebuilt = dump();
    expect(rebuilt.rows).toHaveLength(600);
    expect(rebuilt).toEqual(incremental);
    expect(mem(['search', 'cache layer 42', '--ids', '--limit', '1'], { cwd: v.root, home: v.home }).stdout.trim()).toMatch(/^e-42-\d$/);
    // Many files changed at once (a branch switch): the incremental refresh reconciles them to
    // exactly what a rebuild would build.
    for (let i = 0; i < 100; i++) {
      const f = `memory/area-${i % 7}/notes-${i}.md`;
      let text = v.read(f).replace(`key ${7}`, `key ${7}b`);
      if (i % 3 === 0) text += entry(`new-${i}`, `## Added ${i}\n\nA new learning about the queue ${i}.`);
      if (i % 5 === 0) text = text.replace(/---\nid: e-\d+-0[\s\S]*?(?=---\nid: e-\d+-1)/, '');
      v.write(f, text);
    }
    fs.rmSync(v.path('memory/area-0/notes-119.md'));
    const inc2 = mem(['index'], { cwd: v.root, home: v.home });
    expect(inc2.status).toBe(0);
    expect(inc2.stdout).toMatch(/100 changed, 1 removed/);
    const refreshed = dump();
    expect(mem(['index', '--rebuild'], { cwd: v.root, home: v.home }).status).toBe(0);
    expect(refreshed).toEqual(dump());
    expect(refreshed.rows.length).toBe(600 - 5 - 20 + 34);
    // Files rewritten with the same bytes (a checkout touching them): stats change, rows do not.
    const later = new Date(Date.now() + 5000);
    for (let i = 20; i < 110; i++) {
      const f = v.path(`memory/area-${i % 7}/notes-${i}.md`);
      fs.writeFileSync(f, fs.readFileSync(f));
      fs.utimesSync(f, later, later);
    }
    const touched = mem(['index'], { cwd: v.root, home: v.home });
    expect(touched.stdout).toMatch(/0 changed, 0 removed/);
    expect(dump()).toEqual(refreshed);
  });
});

describe('standard output', () => {
  it('carries big outputs whole through a pipe, and ends quietly when the reader goes away', async () => {
    const { memAsync, BIN } = await import('../helpers.js');
    const v = tempVault();
    v.write('MEMORY.md', Array.from({ length: 1500 }, (_, i) => entry(`id-${i}`, `## Learning number ${i}\n\n${'A long body line that takes room in the output. '.repeat(6)}${i}`)).join(''));
    const r = await memAsync(['list', '--limit', '100000', '--json'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(512 * 1024); // far more than a pipe holds at once
    expect(r.json().entries).toHaveLength(1500);
    // `mem … | head -1`: the pipe closes early; mem exits 0 without a word on stderr.
    const sh = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" list --limit 100000 | head -1; echo "status \${PIPESTATUS[0]}" >&2`], {
      cwd: v.root, env: { ...process.env, MEM_HOME: v.home, MEM_ROOT: undefined, NO_COLOR: '1' }, encoding: 'utf8',
    });
    expect(sh.stdout.trim().split('\n')).toHaveLength(1);
    expect(sh.stderr.trim()).toBe('status 0');
  });
});
