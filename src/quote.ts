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

/**
 * What a terminal may act on in text mem prints: C0 controls but tab and line feed, DEL, the C1
 * controls, and the bidirectional overrides and isolates.
 */
const TERMINAL_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** The colour and weight sequences mem's own styling writes (chalk, one parameter each). */
const OWN_STYLE = /\x1b\[(?:[0-4]|2[2-4]|3[0-9]|4[0-9]|9[0-7]|10[0-7])m/y;

/**
 * `text` as it may reach a terminal: every character a terminal could act on (a vault file's
 * escape sequence that clears the screen, sets the clipboard or the window title, moves the
 * cursor; a bidi override that shows text in another order) is shown as a visible mark instead: C0
 * controls and DEL as their control pictures (ESC as ␛), C1 and bidi controls as U+FFFD. A CR
 * before a line feed goes (a CRLF file's line end). With `keepStyle`, the colour and weight
 * sequences mem's own styling writes stay. Text with none of these is returned as it is.
 */
export function forTerminal(text: string, keepStyle: boolean): string {
  if (!TERMINAL_UNSAFE.test(text)) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!(code < 0x20 ? code !== 9 && code !== 10 : (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069))) continue;
    if (code === 0x1b && keepStyle) {
      OWN_STYLE.lastIndex = i;
      if (OWN_STYLE.test(text)) {
        i = OWN_STYLE.lastIndex - 1;
        continue;
      }
    }
    out += text.slice(from, i);
    from = i + 1;
    if (code === 13 && text.charCodeAt(i + 1) === 10) continue;
    out += code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd';
  }
  return out + text.slice(from);
}

/**
 * JSON text with the C1 controls, the bidi controls and the line and paragraph separators written
 * as `\uXXXX` escapes: the same JSON value, which no terminal acts on (JSON.stringify escapes only
 * the C0 controls). These characters can only stand inside a JSON string.
 */
export function jsonForTerminal(json: string): string {
  return json.replace(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
