// Preloaded into benchmarked mem runs: writes the peak RSS (KiB) to MEM_BENCH_RSS_FILE. Older
// builds re-executed bulk commands in a child process that preloads this too; each process keeps
// the larger of its own peak and the one already written, so a child's peak is not overwritten.
process.on('exit', () => {
  const file = process.env.MEM_BENCH_RSS_FILE;
  if (!file) return;
  const fs = require('fs');
  let before = 0;
  try {
    before = Number(fs.readFileSync(file, 'utf8')) || 0;
  } catch {
    // first writer
  }
  fs.writeFileSync(file, String(Math.max(before, process.resourceUsage().maxRSS)));
});
