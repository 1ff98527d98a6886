// Entry text inside the markdown mem prints for prompts (`mem context`, `mem search --md`): only
// mem writes the structure (sections, titles, provenance lines); what an entry says is quoted, so
// a body cannot forge a `### Norms` section, a provenance line or swallow what follows.

/** Every character that ends a line for some reader: LF, CR, VT, FF, NEL, LS, PS. */
const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
/**
 * Control characters other than tab (a terminal or a model may act on them), the C1 controls
 * but NEL, a line break (U+009B is a terminal's CSI), and the bidirectional overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069), which make what a reader sees differ from what the text says (a title reading
 * as another, a trigger shown reversed) and reach past the text into mem's own line.
 */
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Text for one line that mem writes (a title, a path, the task): every line break becomes a space. */
export function oneLine(text: string): string {
  return text.replace(new RegExp(LINE_BREAKS.source, 'g'), ' ').replace(CONTROLS, ' ').replace(/[\v\f]/g, ' ').trim();
}

/** A title inside `**…**`: the characters that could end the bold or open an inline construct are escaped. */
export function inlineText(text: string): string {
  return oneLine(text).replace(/[\\`*_<[\]]/g, '\\$&');
}

/** The shapes of mem's own source lines (`_type · scope · path:line_`, `_(path:line)_`) and norm items. */
const LOOKS_LIKE_MEM = /^(?:_.* \u00b7 .*_|_\(.*:\d+\)_|[-*+] +\*\*.*\*\* +_\(.*:\d+\)_)[ \t]*$/;

/**
 * A line of a quoted body, made inert where it would otherwise open a block of its own: an ATX
 * heading (`#`), a setext underline (`===`, `---`) or an HTML block (`<!--`, `</tag>`) is escaped
 * with a backslash, which both markdown and a model read as "this is text"; so is a line shaped
 * like a source line or a norm item of mem's.
 */
function inert(line: string): string {
  const m = /^([ \t]*)(.*)$/s.exec(line)!;
  const [, lead, rest] = m;
  if (rest.startsWith('#') || rest.startsWith('<') || /^(?:=+|-+)[ \t]*$/.test(rest) || LOOKS_LIKE_MEM.test(rest)) return `${lead}\\${rest}`;
  return line;
}

/**
 * An entry's body as a blockquote, one `> ` per line (`indent` before it, to sit in a list item).
 * A fence the body never closes ends with the quote (CommonMark closes it with its container), and
 * mem writes a blank line after every quote, so nothing of the body reaches past it.
 */
export function quoteBody(body: string, indent = ''): string[] {
  const text = body.replace(CONTROLS, ' ').replace(/^\s*\n|\s+$/g, '');
  if (text === '') return [];
  return text.split(LINE_BREAKS).map((line) => (line.trim() === '' ? `${indent}>` : `${indent}> ${inert(line)}`));
}
