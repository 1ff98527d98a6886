// `mem validate`: the typed notes (episode and pattern notes) against their schemas, their
// [[links]] and the causal graph's edges; `file:line: message` per problem, exit 1 when any.

import type { Command } from 'commander';
import { formatDiagnostic } from '../../errors.js';
import { vaultFor } from '../common.js';
import { commandCtx } from '../io.js';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check episode and pattern notes: schema, broken [[links]], causal edges to missing notes (exit 1 on problems)')
    .addHelpText('after', `
Checks every typed note in .mem/episodes/ and .mem/patterns/ (by its frontmatter type, or an
EPISODE-/PATTERN-/ANTIPATTERN- file name): required frontmatter fields and sections, value
ranges (success_rate 0-1, occurrences >= 1, dates), causal relationship lines; every [[link]]
must name a note (file name, title or permalink), an entry (id or title) or a decision/event
of the same note ([[d001]], [[e003]]); every causal edge must lead to one pattern or
observation note. Names match as written, or as mem pattern add normalises them ("Stop old
job before cutover" = stop-old-job-before-cutover); a causal target may also be a unique
prefix of a name ("Stop old job"). mem lint runs the same checks.

--json adds a migration report's totals: episodes, patterns and observations as
{"total", "valid"} (valid: no error), and graph_integrity {"total_edges", "valid_edges",
"broken_links": [{"source", "target", "type", "file", "line"}]}.

Examples:
  $ mem validate
  $ mem validate --json | jq '.problems[] | "\\(.file):\\(.line) \\(.message)"'
  $ mem validate --json | jq '{episodes, patterns, edges: .graph_integrity.valid_edges}'`)
    .action(async (_opts: unknown, command: Command) => {
      const ctx = commandCtx(command);
      const vault = await vaultFor(ctx);
      const { validateVault } = await import('../../notes/validate.js');
      const report = validateVault(vault);
      const errors = report.diagnostics.filter((d) => d.severity === 'error').length;
      if (ctx.json) {
        ctx.out(JSON.stringify({
          notes: report.notes,
          problems: report.diagnostics.map((d) => ({ file: d.file, line: d.line ?? null, severity: d.severity, message: d.message })),
          episodes: report.episodes,
          patterns: report.patterns,
          observations: report.observations,
          graph_integrity: report.graph_integrity,
        }, null, 2));
      } else {
        // A diagnostic quotes the note (a link target, a file name): one line, no control a terminal acts on.
        const { oneLine } = await import('../../quote.js');
        for (const d of report.diagnostics) ctx.out(oneLine(formatDiagnostic(d)));
        if (report.diagnostics.length > 0) ctx.info(`${report.diagnostics.length} problem${report.diagnostics.length === 1 ? '' : 's'} in ${new Set(report.diagnostics.map((d) => d.file)).size} of ${report.notes} note${report.notes === 1 ? '' : 's'}`);
        else ctx.info(`${report.notes} note${report.notes === 1 ? '' : 's'} checked, no problems`);
      }
      if (errors > 0) ctx.setExitCode(1);
    });
}
