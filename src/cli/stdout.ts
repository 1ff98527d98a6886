// Standard output without Node's stream object: creating process.stdout loads the stream
// modules, a few milliseconds of every command, for text a single write can carry. Text goes to
// file descriptor 1 directly; should the descriptor be non-blocking and full (EAGAIN), the rest,
// and every later write, goes through process.stdout as usual. A closed pipe (`mem … | head`)
// ends the process quietly, as it did with the stream.

import fs from 'node:fs';

let viaStream = false;

function closedPipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}

function useStream(): void {
  viaStream = true;
  process.stdout.on('error', (err) => {
    if (closedPipe(err)) process.exit(0);
  });
}

export function writeStdout(text: string): void {
  if (viaStream) {
    process.stdout.write(text);
    return;
  }
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  try {
    while (off < buf.length) off += fs.writeSync(1, buf, off, buf.length - off);
  } catch (err) {
    if (closedPipe(err)) process.exit(0);
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    useStream();
    process.stdout.write(buf.subarray(off));
  }
}
