// What mem lets into a memory file: text without NUL and the other control characters, with one
// line-ending style. Every new entry's text passes through here (renderNewEntry), so no input — a
// piped file, a transcript message, a model's reply — can make a memory file look binary, break
// its line structure or hide characters from the person reading it.

/** C0 controls but tab and line feed, DEL, and the C1 controls. CR is handled as a line break. */
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const BREAKS = /\r\n?|[\u2028\u2029]/g;

/**
 * A control character as something visible: C0 and DEL as their Unicode "control picture"
 * (U+2400-U+2421: NUL shows as ␀, ESC as ␛), C1 as U+FFFD. Replacing rather than stripping keeps
 * the reader aware that something was there (`text ␀ more`, not a silent `text  more`) without
 * adding backslashes that markdown, YAML or a later JSON export would have to escape again.
 */
function picture(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return '\ufffd';
}

/** Multi-line text (an entry body): line breaks become `\n`, other controls visible pictures. */
export function safeText(s: string): string {
  return s.replace(BREAKS, '\n').replace(UNSAFE, picture);
}

/** One-line text (a title, a header value): every run of whitespace and line breaks is one space. */
export function safeLine(s: string): string {
  return safeText(s).replace(/\s+/g, ' ').trim();
}

/** Whether `s` holds a character safeText would have replaced (a guard for writers). */
export function hasUnsafeControl(s: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(s) || /\r(?!\n)|[\u2028\u2029]/.test(s);
}

/** The line ending a file mostly uses: CRLF when more of its lines end so than with a bare LF. */
export function newlineOf(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/** Text mem generated (LF line endings) in a file's line-ending style. */
export function withNewline(text: string, nl: '\n' | '\r\n'): string {
  return nl === '\n' ? text : text.replace(/\r?\n/g, '\r\n');
}

/** `text` with every line break (LF or CRLF) made `nl`: text moved into a file takes that file's style. */
export function inNewlineStyle(text: string, nl: '\n' | '\r\n'): string {
  return text.replace(/\r?\n/g, nl);
}

/** The bidirectional overrides and isolates: they make text display in another order than it reads. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of a file's text for a message (an error naming a note's title): safeLine, and the
 * bidi controls shown as U+FFFD, so what the reader sees is what the text says.
 */
export function shownLine(s: string): string {
  return safeLine(s).replace(BIDI, '\ufffd');
}
