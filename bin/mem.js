#!/usr/bin/env node
// Launcher: run the built CLI (npm run build writes dist/).
import { main } from '../dist/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`mem: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
