import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVectors, nearestBySidecar, nearestVectors, prepareVectors, putVectors, storedModel, vectorCount, writeSnapshot } from '../../src/embeddings/stored-vectors.js';
import { carryVectors } from '../../src/index/vectors-table.js';
import { fromBlob, normalize, toBlob } from '../../src/embeddings/vectors.js';
import { createIndexAt } from '../../src/index/db.js';
import { withIndex } from '../../src/index/open.js';
import { DEFAULT_CONFIG, embeddingsFrom, loadConfig } from '../../src/vault/config.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempDir, tempVault } from '../helpers.js';

afterEach(cleanup);

describe('embeddingsFrom', () => {
  const cfg = DEFAULT_CONFIG.embeddings;
  it('is null (lexical only) without a model, or with provider none', () => {
    expect(embeddingsFrom(cfg, {})).toBeNull();
    expect(embeddingsFrom({ ...cfg, model: 'm' }, { MEM_EMBED_PROVIDER: 'none' })).toBeNull();
  });
  it('takes the environment above the config', () => {
    const e = embeddingsFrom({ ...cfg, model: 'a', baseUrl: 'http://x/v1' }, { MEM_EMBED_MODEL: 'b', MEM_EMBED_DIMENSIONS: '256' });
    expect(e).toMatchObject({ model: 'b', baseUrl: 'http://x/v1', dimensions: 256, provider: 'openai-compatible', fusion: 'rrf', batchSize: 64 });
  });
  it('refuses an unknown provider and bad dimensions', () => {
    expect(() => embeddingsFrom({ ...cfg, model: 'm', provider: 'gemini' }, {})).toThrow(/unknown embeddings provider "gemini"/);
    expect(() => embeddingsFrom(cfg, { MEM_EMBED_MODEL: 'm', MEM_EMBED_DIMENSIONS: '1.5' })).toThrow(/MEM_EMBED_DIMENSIONS/);
  });
  it('reads the embeddings: block and search.fusion from .mem/config.yaml', async () => {
    const v = tempVault();
    v.write('.mem/config.yaml', 'embeddings:\n  model: nomic-embed-text\n  base_url: http://localhost:11434/v1\n  dimensions: 768\n  batch_size: 16\nsearch:\n  fusion: blend\n');
    const c = await loadConfig(v.root);
    expect(c.embeddings).toMatchObject({ model: 'nomic-embed-text', baseUrl: 'http://localhost:11434/v1', dimensions: 768, batchSize: 16, fusion: 'blend' });
    v.write('.mem/config.yaml', 'search:\n  fusion: max\n');
    await expect(loadConfig(v.root)).rejects.toThrow(/search.fusion must be rrf or blend/);
  });
});

describe('vector blobs', () => {
  it('round-trip Float32 exactly, also from an unaligned buffer', () => {
    const v = normalize(Float32Array.of(3, 4));
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    const blob = toBlob(v);
    const shifted = Buffer.alloc(blob.length + 1);
    blob.copy(shifted, 1);
    expect(Array.from(fromBlob(shifted.subarray(1)))).toEqual(Array.from(v));
  });
});

describe('the vector table', () => {
  it('lists each distinct text once, drops another model and orphans, and survives a rebuild', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('a', '# Same\nbody') + entry('b', '# Same\nbody') + entry('c', '# Other\ntext'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const missing = prepareVectors(ix.db, 'm1');
      expect(missing.map((m) => m.text)).toEqual(['Same\nbody', 'Other\ntext']);
      putVectors(ix.db, 'm1', missing.map((m) => ({ hash: m.hash, vec: normalize(Float32Array.of(1, 2, 3)) })));
      expect(prepareVectors(ix.db, 'm1')).toEqual([]);
      expect(vectorCount(ix.db, 'm1')).toBe(2);
      const loaded = loadVectors(ix.db, 'm1', {}, 3);
      expect(loaded.rowidsOf.flat()).toHaveLength(3);
      expect(loaded.dims).toBe(3);
      // The int8 sidecar beside the index answers the same as the exact scan: both entries with
      // the same text share one vector, and a filter applies.
      writeSnapshot(ix.db, 'm1');
      expect(fs.existsSync(`${vault.dbPath}-vec`)).toBe(true);
      const q = normalize(Float32Array.of(1, 2, 3));
      const exact = loadVectors(ix.db, 'm1', {}, 3);
      expect(exact.rowidsOf.flat()).toHaveLength(3);
      const near = nearestBySidecar(ix.db, 'm1', q, {}, 10)!;
      expect(near.map((h) => h.key).sort()).toEqual(loaded.rowidsOf.flat().sort());
      expect(near.every((h) => Math.abs(h.cosine - 1) < 1e-6)).toBe(true);
      expect(nearestBySidecar(ix.db, 'm1', q, { paths: ['nowhere.md'] }, 10)).toEqual([]);
      // A vector written after the sidecar is scored exactly (from SQLite) until the sidecar is rewritten.
      const cId = (ix.db.prepare("SELECT rowid FROM entries WHERE entry_id = 'c'").get() as { rowid: number }).rowid;
      const other = ix.db.prepare("SELECT content_hash FROM entries WHERE entry_id = 'c'").get() as { content_hash: string };
      putVectors(ix.db, 'm1', [{ hash: other.content_hash, vec: normalize(Float32Array.of(0, 0, 1)) }]);
      const zq = Float32Array.of(0, 0, 1);
      expect(nearestBySidecar(ix.db, 'm1', zq, {}, 1)).toEqual([{ key: cId, cosine: 1 }]);
      writeSnapshot(ix.db, 'm1');
      expect(nearestBySidecar(ix.db, 'm1', zq, {}, 1)).toEqual([{ key: cId, cosine: 1 }]);
      expect(nearestVectors(ix.db, 'm1', zq, {}, 1)).toEqual([{ key: cId, cosine: 1 }]);
      // Deleted: the index falls back to the exact scan, with the same answer.
      fs.rmSync(`${vault.dbPath}-vec`);
      expect(nearestBySidecar(ix.db, 'm1', zq, {}, 1)).toBeNull();
      expect(nearestVectors(ix.db, 'm1', zq, {}, 1)).toEqual([{ key: cId, cosine: 1 }]);
      // Carried into a fresh index file (what `mem index --rebuild` does).
      const dir = tempDir();
      const fresh = createIndexAt(`${dir}/new.db`);
      fresh.exec(`ATTACH DATABASE '${vault.dbPath.replace(/'/g, "''")}' AS src; INSERT INTO main.entries SELECT * FROM src.entries; DETACH DATABASE src;`);
      carryVectors(fresh, vault.dbPath);
      expect(storedModel(fresh)).toBe('m1');
      expect(vectorCount(fresh, 'm1')).toBe(2);
      carryVectors(fresh, `${dir}/missing.db`);
      expect(fs.existsSync(`${dir}/missing.db`)).toBe(false); // ATTACH would have created it
      fresh.close();
      // A model change: the old model's vectors go, everything is listed again.
      expect(prepareVectors(ix.db, 'm2')).toHaveLength(2);
      expect(vectorCount(ix.db, 'm1')).toBe(0);
      expect(storedModel(ix.db)).toBe('m2');
    });
  });
});
