// Preloaded into benchmarked mem runs: writes the process's peak RSS (KiB) to MEM_BENCH_RSS_FILE.
process.on('exit', () => {
  if (process.env.MEM_BENCH_RSS_FILE) require('fs').writeFileSync(process.env.MEM_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
});
