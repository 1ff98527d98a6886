// Word characters are the letters and digits of every script (\p{L}\p{N}). V8 compiles a regex
// with Unicode property classes when it is first used, 1-2 ms apiece in every process, and a
// search used five of them. For ASCII text (most queries and memories) the ASCII classes are the
// same sets and compile in microseconds; other text gets the Unicode ones.

export interface WordRegexes {
  /** Runs of word characters (global). */
  word: RegExp;
  /** A whole string of word characters. */
  only: RegExp;
  /** Non-word characters at either end (global). */
  edges: RegExp;
  /** Word parts joined by inner punctuation: paths, dotted names, snake and kebab case. */
  ident: RegExp;
  /** A digit. */
  digit: RegExp;
}

const NON_ASCII = /[^\x00-\x7f]/;

const ASCII: WordRegexes = {
  word: /[A-Za-z0-9]+/g,
  only: /^[A-Za-z0-9]+$/,
  edges: /^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g,
  ident: /^[A-Za-z0-9]+(?:[._/:-]+[A-Za-z0-9]+)+$/,
  digit: /[0-9]/,
};

let unicode: WordRegexes | undefined;

/** Whether these are the ASCII word regexes: words are then exactly the runs of [A-Za-z0-9]. */
export function asciiWords(rx: WordRegexes): boolean {
  return rx === ASCII;
}

/** The word regexes for `text`: ASCII ones when it is ASCII (the same answers, compiled cheaply). */
export function wordRegexes(text: string): WordRegexes {
  if (!NON_ASCII.test(text)) return ASCII;
  unicode ??= {
    word: /[\p{L}\p{N}]+/gu,
    only: /^[\p{L}\p{N}]+$/u,
    edges: /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu,
    ident: /^[\p{L}\p{N}]+(?:[._/:-]+[\p{L}\p{N}]+)+$/u,
    digit: /\p{N}/u,
  };
  return unicode;
}
