// OpenAI Chat Completions through the official SDK; also any OpenAI-compatible server (Ollama,
// vLLM, LM Studio, llama.cpp) through its base URL. Structured answers use a JSON schema
// response format; servers that ignore it still have to answer with a JSON object.

import OpenAI from 'openai';
import { ProviderError, providerError, type ClientOptions, type LlmProvider, type LlmRequest, type LlmResponse, type ProviderConfig } from './provider-api.js';
import { llmFetch } from './bounded-fetch.js';

export function openaiProvider(config: ProviderConfig, opts: ClientOptions): LlmProvider {
  const env = opts.env;
  const apiKey = env.OPENAI_API_KEY || (config.baseUrl ? 'not-needed' : undefined);
  if (!apiKey) throw new ProviderError('the openai provider needs OPENAI_API_KEY (or a base URL for a local server)', 'auth', 'export OPENAI_API_KEY=…, set OPENAI_BASE_URL, or use --provider heuristic');
  const client = new OpenAI({ apiKey, baseURL: config.baseUrl, timeout: opts.timeoutMs, maxRetries: opts.maxRetries, fetch: llmFetch(config, opts) });
  return {
    config,
    async complete(req: LlmRequest): Promise<LlmResponse> {
      let res: OpenAI.Chat.Completions.ChatCompletion;
      try {
        res = await client.chat.completions.create({
          model: config.model,
          max_tokens: req.maxTokens ?? 4096,
          messages: [
            { role: 'system', content: req.system },
            { role: 'user', content: req.prompt },
          ],
          ...(req.schema ? { response_format: { type: 'json_schema' as const, json_schema: { name: req.schemaName ?? 'answer', schema: req.schema, strict: true } } } : {}),
        });
      } catch (err) {
        throw providerError(err, config, { ...opts, secrets: [apiKey, ...(opts.secrets ?? [])] });
      }
      const usage = { inputTokens: res.usage?.prompt_tokens ?? 0, outputTokens: res.usage?.completion_tokens ?? 0 };
      const text = res.choices?.[0]?.message?.content ?? '';
      if (!req.schema) return { text, usage };
      const body = text.trim().replace(/^```(?:json)?\s*|\s*```$/g, '');
      try {
        return { text, json: JSON.parse(body), usage };
      } catch {
        throw new ProviderError(`${config.name} (${config.model}) answered with text that is not valid JSON: ${JSON.stringify(text.slice(0, 80))}`, 'invalid-answer', 'try another model, or --provider heuristic');
      }
    },
  };
}
