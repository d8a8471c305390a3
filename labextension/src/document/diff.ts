/**
 * The part of a cell's source an agent's edit changes, so only that part is replaced in the
 * shared model (the person's cursor and selection elsewhere stay where they are).
 */

/** The smallest replacement turning `before` into `after`: `before[from:to]` becomes `text`
 * (the common start and end are kept). */
export function changedPart(before: string, after: string): [number, number, string] {
  let from = 0;
  while (from < before.length && from < after.length && before[from] === after[from]) {
    from++;
  }
  let end = 0;
  while (
    end < before.length - from &&
    end < after.length - from &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  ) {
    end++;
  }
  if (from > 0 && isHigh(before.charCodeAt(from - 1))) {
    from--; // never split a character written as two code units (an emoji)
  }
  if (end > 0 && isLow(before.charCodeAt(before.length - end))) {
    end--;
  }
  end = Math.min(end, before.length - from, after.length - from);
  return [from, before.length - end, after.slice(from, after.length - end)];
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
