// Anthropic Messages API through the official SDK. Structured answers use a forced tool call:
// the tool's input schema is the answer's schema, so the model replies with a JSON object.

import Anthropic from '@anthropic-ai/sdk';
import { ProviderError, providerError, type ClientOptions, type LlmProvider, type LlmRequest, type LlmResponse, type ProviderConfig } from './provider-api.js';
import { llmFetch } from './bounded-fetch.js';

export function anthropicProvider(config: ProviderConfig, opts: ClientOptions): LlmProvider {
  const env = opts.env;
  const apiKey = env.ANTHROPIC_API_KEY;
  if (!apiKey) throw new ProviderError('the anthropic provider needs ANTHROPIC_API_KEY', 'auth', 'export ANTHROPIC_API_KEY=…, or use --provider heuristic');
  const client = new Anthropic({ apiKey, baseURL: config.baseUrl, timeout: opts.timeoutMs, maxRetries: opts.maxRetries, fetch: llmFetch(config, opts) });
  return {
    config,
    async complete(req: LlmRequest): Promise<LlmResponse> {
      const tool = req.schemaName ?? 'answer';
      let res: Anthropic.Message;
      try {
        res = await client.messages.create({
          model: config.model,
          max_tokens: req.maxTokens ?? 4096,
          system: req.system,
          messages: [{ role: 'user', content: req.prompt }],
          ...(req.schema
            ? { tools: [{ name: tool, description: 'Record the answer.', input_schema: req.schema as Anthropic.Tool.InputSchema }], tool_choice: { type: 'tool' as const, name: tool } }
            : {}),
        });
      } catch (err) {
        throw providerError(err, config, { ...opts, secrets: [apiKey, ...(opts.secrets ?? [])] });
      }
      const usage = { inputTokens: res.usage?.input_tokens ?? 0, outputTokens: res.usage?.output_tokens ?? 0 };
      const text = res.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      if (!req.schema) return { text, usage };
      const call = res.content.find((b) => b.type === 'tool_use');
      if (call && call.type === 'tool_use' && typeof call.input === 'object' && call.input !== null) return { text, json: call.input, usage };
      // Some models answer in text despite the forced tool: accept a JSON object there.
      try {
        return { text, json: JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)), usage };
      } catch {
        throw new ProviderError(`${config.name} (${config.model}) did not return a structured answer`, 'invalid-answer');
      }
    },
  };
}
