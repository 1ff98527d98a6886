// The near-duplicate search's sketches made on two threads (similarEdges' `share`): the second
// half of the token sets goes to a worker thread (scan-worker.ts), which gives back their band
// hashes while this thread sketches the first half. The search is synchronous (inside
// compaction's plan), so the answer is received synchronously: a MessagePort read with
// receiveMessageOnPort, and a shared counter the worker bumps once it answered, to wake this
// thread from Atomics.wait.

import fs from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { SketchSharing, TokenSet } from './similarity.js';

/** The job message (scan-worker.ts): the sets, one after another in `data`, set k at offsets[k]..offsets[k + 1]. */
export interface SketchJob {
  kind: 'sketch';
  data: Int32Array;
  offsets: Int32Array;
  port: MessagePort;
  signal: Int32Array;
}

/** What the worker sends back. */
export type SketchReply = { bands: Uint32Array } | { error: string };

/**
 * Waiting longer than this, and than three times what this thread's own half took, takes the
 * sets back to this thread: a worker that died cannot say so to a thread blocked in Atomics.wait.
 */
const PATIENCE_MS = 5000;

/**
 * Sketching shared with a worker thread running `script`, for one search (start, result, end);
 * undefined when the script is not there (built beside the CLI's bundle; none from source).
 */
export function sketchSharing(script: URL, patienceMs = PATIENCE_MS): SketchSharing | undefined {
  if (script.protocol !== 'file:' || !fs.existsSync(script)) return undefined;
  let worker: Worker | null = null;
  let port: MessagePort | null = null;
  let signal: Int32Array | null = null;
  let started = 0;
  return {
    start(sets: TokenSet[], from: number) {
      try {
        let total = 0;
        for (let s = from; s < sets.length; s++) total += sets[s].length;
        const data = new Int32Array(total);
        const offsets = new Int32Array(sets.length - from + 1);
        for (let s = from, at = 0; s < sets.length; s++) {
          data.set(sets[s], at);
          at += sets[s].length;
          offsets[s - from + 1] = at;
        }
        const channel = new MessageChannel();
        signal = new Int32Array(new SharedArrayBuffer(4));
        worker = new Worker(script);
        // Not a reason to keep the process alive: this thread waits for it, or gives up on it.
        worker.unref();
        // A failure is answered by sketching its half here.
        worker.on('error', () => undefined);
        const job: SketchJob = { kind: 'sketch', data, offsets, port: channel.port2, signal };
        worker.postMessage(job, [data.buffer, offsets.buffer, channel.port2]);
        port = channel.port1;
        started = Date.now();
        return true;
      } catch {
        this.end();
        return false;
      }
    },
    result() {
      if (!port || !signal) return null;
      const waitFrom = Date.now();
      for (;;) {
        const seen = Atomics.load(signal, 0);
        const msg = receiveMessageOnPort(port)?.message as SketchReply | undefined;
        if (msg) return 'bands' in msg ? msg.bands : null;
        if (Date.now() - waitFrom > Math.max(patienceMs, 3 * (waitFrom - started))) return null;
        Atomics.wait(signal, 0, seen, 100);
      }
    },
    end() {
      port?.close();
      void worker?.terminate();
      worker = null;
      port = null;
    },
  };
}
