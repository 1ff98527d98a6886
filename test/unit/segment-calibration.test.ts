import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/extract/source.js';
import { calibratedSurprise, conversationOf, distanceScale, segment, type ConversationMessage } from '../../src/episodes/segment.js';
import { REPO } from '../helpers.js';
import { CSS_TURNS, DB_TURNS } from '../topics.js';

const FIX = path.join(REPO, 'test', 'fixtures', 'transcripts');

const DB = DB_TURNS;
const CSS = CSS_TURNS;

function conv(texts: string[]): ConversationMessage[] {
  return texts.map((text, index) => ({ index, role: index % 2 ? 'assistant' : 'user', text }));
}

describe('calibrated surprise', () => {
  it('maps the session\'s own spread onto the thresholds\' scale (0.22 / 0.7 / 0.85), whatever the channel\'s range of distances', () => {
    const scale = { median: 0.6, spread: 0.1 };
    expect(calibratedSurprise(0.6, scale)).toBeCloseTo(0.22, 2); // ordinary: minor
    expect(calibratedSurprise(0.85, scale)).toBeCloseTo(0.7, 2); // 2.5 deviations: key moment
    expect(calibratedSurprise(0.95, scale)).toBeGreaterThan(0.84); // 3.5: flashbulb
    // Embeddings' distances crowd low: the same deviation means the same surprise.
    expect(calibratedSurprise(0.35, { median: 0.2, spread: 0.06 })).toBeCloseTo(0.7, 2);
    // Closer than usual: toward 0; the same words again: 0.
    expect(calibratedSurprise(0.4, scale)).toBeLessThan(0.1);
    expect(calibratedSurprise(0, scale)).toBe(0);
    // No yardstick (too few distances): a distance counts as ordinary at most.
    expect(calibratedSurprise(1, null)).toBeCloseTo(0.22, 2);
    expect(calibratedSurprise(0.1, null)).toBe(0.1);
  });

  it('the yardstick: median and a robust spread with a floor; none from fewer than 3 distances', () => {
    expect(distanceScale([0.5, 0.9])).toBeNull();
    const s = distanceScale([0.5, 0.6, 0.7, 0.6])!;
    expect(s.median).toBeCloseTo(0.6);
    expect(s.spread).toBeCloseTo(0.074, 2);
    expect(distanceScale([0.6, 0.6, 0.6])!.spread).toBe(0.05);
  });

  it('a clear topic switch opens an episode with a key moment; the episode before it is ordinary', () => {
    const eps = segment(conv([...DB, ...CSS]));
    expect(eps.map((e) => [e.first, e.reason])).toEqual([[0, 'start'], [DB.length, 'surprise']]);
    expect(eps[1].surprise).toBeGreaterThanOrEqual(0.7);
    expect(eps[0].surprise).toBeLessThan(0.5);
  });

  it('a monotone session is one episode and neither a key moment nor a flashbulb', () => {
    const eps = segment(conv(DB));
    expect(eps).toHaveLength(1);
    expect(eps[0].surprise).toBeLessThan(0.7);
  });

  it('a short session (too few messages to judge) is never a key moment, however new its words', () => {
    for (const texts of [[DB[0], CSS[1]], [DB[0], DB[1], CSS[0], CSS[1]], [CSS[0], DB[1], DB[2], CSS[3], DB[4]]]) {
      for (const e of segment(conv(texts))) expect(e.surprise).toBeLessThan(0.7);
    }
  });

  it('on the real transcripts: few key moments, fewer flashbulbs, none in a short session', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const n of fs.readdirSync(d, { withFileTypes: true })) {
        if (n.isDirectory()) walk(path.join(d, n.name));
        else if (/\.jsonl?$/.test(n.name)) files.push(path.join(d, n.name));
      }
    };
    walk(FIX);
    expect(files.length).toBeGreaterThanOrEqual(9);
    let eps = 0;
    let key = 0;
    let flash = 0;
    for (const f of files) {
      const msgs = conversationOf(loadTranscript(f, { cwd: REPO }).transcript);
      const out = segment(msgs);
      eps += out.length;
      key += out.filter((e) => e.surprise >= 0.7).length;
      flash += out.filter((e) => e.surprise >= 0.85).length;
      if (msgs.length < 20) expect(out.every((e) => e.surprise < 0.7), path.basename(f)).toBe(true);
    }
    expect(key / eps).toBeLessThanOrEqual(0.3);
    expect(flash / eps).toBeLessThanOrEqual(0.15);
  });
});
