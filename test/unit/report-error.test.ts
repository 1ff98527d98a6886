// The `mem: …` line of a failed command: the last stop before the terminal.
import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/report.js';
import { MemError } from '../../src/errors.js';
import { testIo } from '../run.js';

describe('reportError', () => {
  it('shows the controls an error quotes (a title, a line of a file) instead of sending them', () => {
    const io = testIo({ cwd: '/' });
    const code = reportError(new MemError('bad entry "x\u001b]0;owned\u0007\u202e" in MEMORY.md', { hint: 'fix \u001b[2J it' }), false, io);
    expect(code).not.toBe(0);
    expect(io.err).toBe('mem: bad entry "x␛]0;owned␇\ufffd" in MEMORY.md\nhint: fix ␛[2J it\n');
    const other = testIo({ cwd: '/' });
    reportError(new Error('boom \u009b2J'), false, other);
    expect(other.err).toMatch(/^mem: boom \ufffd2J\n/);
  });
});
