// The fetch the SDKs (openai, @anthropic-ai/sdk) are given: the whole exchange, body included,
// within the configured timeout, and a cap on the answer's size. The SDKs' own timeout stops at
// the response headers, so a server dripping its body a byte at a time held a command forever.

export interface BoundedFetchOptions {
  timeoutMs: number;
  /** Bytes of answer at most; past it the request is cut and `tooLarge()` thrown. */
  cap: number;
  tooLarge: () => Error;
  /** 'manual': a 3xx is handed to the SDK as it is (an error), never followed. Default: follow. */
  redirect?: RequestRedirect;
}

export function boundedFetch(o: BoundedFetchOptions): typeof fetch {
  return async (input, init = {}) => {
    const ac = new AbortController();
    const outer = init.signal;
    const onAbort = () => ac.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort);
    // "timed out" in the reason: the SDKs report it as their timeout error.
    const timer = setTimeout(() => ac.abort(new Error('request timed out')), o.timeoutMs);
    try {
      const res = await fetch(input, { ...init, signal: ac.signal, ...(o.redirect ? { redirect: o.redirect } : {}) });
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (res.body) {
        for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
          size += c.byteLength;
          if (size > o.cap) {
            ac.abort(new Error('answer too large'));
            throw o.tooLarge();
          }
          chunks.push(c);
        }
      }
      // Statuses that may not carry a body (204, 304…) get none.
      const body = size === 0 || [101, 204, 205, 304].includes(res.status) ? null : Buffer.concat(chunks);
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  };
}

/** A language model's answer at most: far above any max_tokens answer mem asks for. */
export const LLM_ANSWER_CAP = 16 * 1_048_576;

/** The fetch of a language model's SDK: bounded by its timeout and LLM_ANSWER_CAP; redirects followed as before. */
export function llmFetch(config: { name: string; model: string }, opts: { timeoutMs: number }): typeof fetch {
  return boundedFetch({ timeoutMs: opts.timeoutMs, cap: LLM_ANSWER_CAP, tooLarge: () => new Error(`${config.name} (${config.model}) answered more than ${LLM_ANSWER_CAP / 1_048_576} MB`) });
}
