// Minimal glob matching for `include:` patterns: `**`, `*`, `?`, `[...]` and `{a,b}`.

export function globToRegExp(glob: string): RegExp {
  let re = '';
  let i = 0;
  let braces = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          re += glob[i + 2] === '/' ? '(?:[^/]*(?:/|$))*' : '.*';
          i += glob[i + 2] === '/' ? 3 : 2;
          continue;
        }
        re += '[^/]*';
        i += 2;
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|\\]/g, '\\$&');
    i++;
  }
  return new RegExp(`^${re}$`);
}

/** The leading folder of a glob that holds no wildcard: where a walk for it can start. */
export function globBase(glob: string): string {
  const parts = glob.split('/');
  const out: string[] = [];
  for (const p of parts.slice(0, -1)) {
    if (/[*?[{]/.test(p)) break;
    out.push(p);
  }
  return out.join('/');
}
