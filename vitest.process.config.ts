import { defineConfig } from 'vitest/config';

// The tests where a real process is the point: the installed launcher, signals and kill -9, locks
// between processes, stdin pipes, MCP over stdio, watch, and the hooks and merge driver that git
// and agents run. They spawn the built CLI (npm run build first); CI runs them after `npm test`.
export default defineConfig({
  test: {
    include: ['test/process/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
