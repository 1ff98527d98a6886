import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateTypedNotes } from '../../src/notes/validate.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function vaultWith(note: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-val-'));
  dirs.push(root);
  fs.mkdirSync(path.join(root, '.mem', 'episodes'), { recursive: true });
  fs.writeFileSync(path.join(root, '.mem', 'episodes', 'EPISODE-s.md'), note);
  return root;
}

const note = (effect: string, eol = '\n') => [
  '---', 'title: EPISODE-s', 'type: episode', 'tags: [episodic]', 'permalink: episodes/episode-s', 'session_id: s', 'outcome: success', 'task: t', '---', '',
  '# EPISODE-s', '', '## Context', 'c', '', '## Decisions',
  '### pick-db: postgres', '- **Timestamp**: 2026-11-25T10:00:00Z', '- **Type**: design', '- **Context**: c', '- **Chosen**: pg', '- **Outcome**: success', `- **Effects**: [[${effect}]]`, '',
  '### v1.setup_db: compose', '- **Timestamp**: 2026-11-25T10:00:00Z', '- **Type**: implementation', '- **Context**: c', '- **Chosen**: x', '- **Outcome**: success', '',
  '## Events Timeline', '', '## Lessons Learned', '', '## Relations', '',
].join(eol);

const links = (root: string) => validateTypedNotes(root).diagnostics.filter((d) => /\[\[/.test(d.message)).map((d) => d.message);

describe('validate: decision ids of any shape store_episode takes', () => {
  it('resolves [[id]] to a `### id: title` decision heading, LF or CRLF', () => {
    expect(links(vaultWith(note('v1.setup_db')))).toEqual([]);
    expect(links(vaultWith(note('v1.setup_db', '\r\n')))).toEqual([]);
  });
  it('still reports a link to no decision', () => {
    expect(links(vaultWith(note('nope-1'))).length).toBeGreaterThan(0);
  });
});

describe('validate: a note with very many problems', () => {
  it('names every one of 200,000 event links to no decision or event, without running out of stack', () => {
    const tails = ' \u2192 [[e1]]'.repeat(200_000);
    const root = vaultWith(note('pick-db').replace('## Events Timeline\n', `## Events Timeline\n1. [2026-11-25T10:00:00Z] started #milestone${tails}\n`));
    const bad = validateTypedNotes(root).diagnostics.filter((d) => d.message === 'event e001: link [[e1]] is not a decision or event of this note');
    expect(bad).toHaveLength(200_000);
  });
});
