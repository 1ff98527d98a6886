import { describe, expect, it } from 'vitest';
import { ageDays, prominencePolicy, recencyDecay, relevancePolicy } from '../../src/retrieve/policy.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const mult = { global: 1.0, project: 1.2, session: 1.2, team: 1.5 };
const daysAgo = (n: number) => new Date(NOW - n * 86_400_000).toISOString().slice(0, 10);
const score = (o: Partial<Parameters<typeof prominencePolicy.score>[0]>) =>
  prominencePolicy.score({ relevance: 1, importance: 0.5, reinforcement_count: 0, last_reinforced: daysAgo(0), created_at: null, status: 'active', scope: 'project', ...o }, { now: NOW, scopeMultipliers: mult });

describe('prominence policy', () => {
  it('multiplies relevance, importance, decay, reinforcement and scope', () => {
    const s = score({ relevance: 0.5, importance: 0.8, reinforcement_count: 2, scope: 'team' });
    expect(s.decay).toBe(1);
    expect(s.score).toBeCloseTo(0.5 * 0.8 * 1 * 3 * 1.5, 10);
  });
  it('halves at 90 days and never falls below 0.1', () => {
    expect(recencyDecay(90)).toBeCloseTo(0.5, 10);
    expect(score({ last_reinforced: daysAgo(90) }).decay).toBeCloseTo(0.5, 10);
    expect(recencyDecay(10_000)).toBe(0.1);
  });
  it('orders by importance, recency and reinforcement', () => {
    expect(score({ importance: 0.9 }).score).toBeGreaterThan(score({ importance: 0.8 }).score);
    expect(score({ importance: 0.2, last_reinforced: daysAgo(180) }).score).toBeLessThan(score({ importance: 0.1 }).score);
    expect(score({ reinforcement_count: 5 }).score / score({ reinforcement_count: 0 }).score).toBeCloseTo(6, 10);
  });
  it('gives retired entries 0', () => {
    expect(score({ status: 'retired' }).score).toBe(0);
    expect(relevancePolicy.score({ relevance: 1, importance: 1, reinforcement_count: 0, last_reinforced: null, created_at: null, status: 'retired', scope: 'project' }, { now: NOW, scopeMultipliers: mult }).score).toBe(0);
  });
  it('ages from last_reinforced, else created_at; a date today is age 0', () => {
    expect(ageDays({ last_reinforced: null, created_at: daysAgo(30) }, NOW)).toBe(30);
    expect(ageDays({ last_reinforced: daysAgo(3), created_at: daysAgo(30) }, NOW)).toBe(3);
    expect(ageDays({ last_reinforced: null, created_at: null }, NOW)).toBe(0);
    expect(ageDays({ last_reinforced: '2030-01-01', created_at: null }, NOW)).toBe(0);
  });
});
