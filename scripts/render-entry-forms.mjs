#!/usr/bin/env node
// `node scripts/render-entry-forms.mjs`: examples/sample-vault/MEMORY.md rendered as markdown in
// both entry header forms (`---` YAML, and the one-line `<!-- mem {…} -->` comment), written to
// docs/rendering/*.html, and to PNG screenshots beside them when a Chromium is on PATH (Debian:
// apt-get install chromium). markdown-it in CommonMark mode renders headings, rules and HTML
// blocks as GitHub's cmark-gfm does; the page style is a plain imitation of GitHub's.

import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(repo, 'docs', 'rendering');
fs.mkdirSync(out, { recursive: true });

// mem's own parser and writer, bundled from the sources (no build of the CLI needed).
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-render-'));
const modFile = path.join(tmp, 'vault.mjs');
await build({
  stdin: { contents: "export { parseMemoryFile, serializeFile } from './src/vault/format.ts'; export { withHeaderForm } from './src/vault/edit.ts';", resolveDir: repo, loader: 'ts' },
  bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: modFile, logLevel: 'warning',
});
fs.symlinkSync(path.join(repo, 'node_modules'), path.join(tmp, 'node_modules'));
const { parseMemoryFile, serializeFile, withHeaderForm } = await import(pathToFileURL(modFile).href);

const yamlForm = fs.readFileSync(path.join(repo, 'examples', 'sample-vault', 'MEMORY.md'), 'utf8');
const parsed = parseMemoryFile(yamlForm, 'MEMORY.md');
const commentForm = serializeFile({ ...parsed, blocks: parsed.blocks.map((b) => ({ ...b, raw: withHeaderForm(b.raw, 'comment') })) });

const STYLE = `body{font:16px/1.5 -apple-system,"Segoe UI","DejaVu Sans",Helvetica,Arial,sans-serif;color:#1f2328;max-width:860px;margin:24px auto;padding:0 32px}
h1,h2{font-weight:600;border-bottom:1px solid #d1d9e0;padding-bottom:.3em;margin:24px 0 16px}h1{font-size:2em}h2{font-size:1.5em}
hr{height:4px;background:#d1d9e0;border:0;margin:24px 0}code{font:85% ui-monospace,"DejaVu Sans Mono",monospace;background:#eff1f3;padding:.2em .4em;border-radius:6px}
.label{font:12px ui-monospace,"DejaVu Sans Mono",monospace;color:#59636e;border:1px solid #d1d9e0;border-radius:6px;padding:4px 8px;display:inline-block}`;
const md = new MarkdownIt('commonmark');
for (const [name, text, label] of [['yaml-form', yamlForm, 'entry headers between --- lines (the earlier form)'], ['comment-form', commentForm, 'entry headers as one <!-- mem {…} --> line (new files)']]) {
  fs.writeFileSync(path.join(out, `${name}.md`), text);
  const html = `<!doctype html>\n<meta charset="utf-8">\n<title>MEMORY.md: ${name}</title>\n<style>${STYLE}</style>\n<p class="label">${md.utils.escapeHtml(label)}</p>\n${md.render(text)}`;
  const file = path.join(out, `${name}.html`);
  fs.writeFileSync(file, html);
  const chromium = ['chromium', 'chromium-browser', 'google-chrome'].find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
  if (!chromium) {
    console.log(`wrote ${path.relative(repo, file)} (no Chromium on PATH: no screenshot)`);
    continue;
  }
  const png = path.join(out, `${name}.png`);
  const r = spawnSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--force-device-scale-factor=1', '--window-size=900,1500', `--screenshot=${png}`, pathToFileURL(file).href], { stdio: 'ignore' });
  console.log(r.status === 0 ? `wrote ${path.relative(repo, file)} and ${path.relative(repo, png)}` : `wrote ${path.relative(repo, file)} (${chromium} failed: no screenshot)`);
}
fs.rmSync(tmp, { recursive: true, force: true });
