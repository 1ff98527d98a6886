// What one tool of `mem mcp` is (its name, schemas, annotations and handler) and what a handler
// gets from the server; the tool files and the server share these.

import type { z } from 'zod';
import type { Vault } from '../../vault/vault.js';
import type { ToolAnswer } from './results.js';

/** What a handler needs from the server: the vault (opened per call, so config edits apply) and the clock. */
export interface ToolEnv {
  openVault(): Promise<Vault>;
  cwd: string;
  /** The server's environment variables (embeddings endpoint and key). */
  vars: NodeJS.ProcessEnv;
  now(): number;
  today(): string;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodRawShape;
  outputSchema: z.ZodRawShape;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false };
  run(args: Record<string, unknown>, env: ToolEnv): Promise<ToolAnswer>;
}
