import { defineConfig } from 'vitest/config';

// `npm test`: unit tests and the CLI run in-process through main(argv, io). The tests that need
// real processes live in test/process (vitest.process.config.ts, `npm run test:process`).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
