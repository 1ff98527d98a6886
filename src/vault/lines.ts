// Line bookkeeping for memory files: where each line starts, and which line an offset is on.

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
  return starts;
}

/** 1-based line number of a character offset. */
export function lineOfOffset(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
