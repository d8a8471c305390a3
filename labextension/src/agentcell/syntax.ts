/**
 * What a `%%agent` cell looks like, as pure functions over strings (no editor, no DOM), so
 * the rules can be tested on their own. They mirror the kernel side:
 * `jupyter_agents/notebook/cells/options.py` (the magic line) and `notebook/cells/prompt.py`
 * (`{expression}` interpolation).
 */

/** The cell magic that turns a code cell into a prompt for an agent. */
export const AGENT_MAGIC = '%%agent';

/**
 * The options of the magic line and whether each takes a value, as in `options.py`'s
 * argparse parser (`tests/notebook/test_labextension.py` keeps them in step).
 */
export const FLAGS: Readonly<Record<string, 'value' | 'switch'>> = {
  '--model': 'value',
  '--mode': 'value',
  '--max-turns': 'value',
  '--new': 'switch',
  '--out': 'value',
  '--approve': 'value',
  '--background': 'switch',
  '--live': 'switch',
  '--replay': 'switch',
  '--replay-tools': 'value',
  '--over': 'value',
  '--eval': 'value',
  '--scorer': 'value',
  '--concurrency': 'value',
  '--backend': 'value',
  '--keep-warm': 'switch',
  '--fresh': 'switch',
  '--rpm': 'value',
  '--tpm': 'value'
};

/** The values `--backend` accepts. */
export const BACKEND_CHOICES: readonly string[] = ['local', 'ray'];

/** The values `--replay-tools` accepts. */
export const REPLAY_TOOLS_CHOICES: readonly string[] = ['recorded', 'run'];

/** The values `--mode` accepts. */
export const MODE_CHOICES: readonly string[] = ['ask', 'plan', 'agent'];

/** The values `--approve` accepts. */
export const APPROVE_CHOICES: readonly string[] = ['ask', 'auto', 'deny', 'review'];

/** What one word of the magic line is. */
export type MagicPartKind =
  | 'command' // `%%agent` itself
  | 'agent' // the optional AGENT variable
  | 'flag' // a known `--option` (or an unambiguous prefix of one, as argparse allows)
  | 'value' // the value of the option before it
  | 'invalid'; // anything the kernel would refuse with a UsageError

/** One word of the magic line: its kind and where it is (offsets into the line). */
export interface MagicPart {
  readonly kind: MagicPartKind;
  readonly from: number;
  readonly to: number;
}

/** True when `line` (a cell's first line) starts with `%%agent` as a whole word. */
export function isMagicLine(line: string): boolean {
  if (!line.startsWith(AGENT_MAGIC)) {
    return false;
  }
  const next = line.charAt(AGENT_MAGIC.length);
  return next === '' || /\s/.test(next);
}

/** The first line of `source` (without its line break). */
export function firstLine(source: string): string {
  const end = source.search(/\r\n?|\n/);
  return end < 0 ? source : source.slice(0, end);
}

/** True when `source` is the text of a `%%agent` cell. */
export function isAgentSource(source: string): boolean {
  return isMagicLine(firstLine(source));
}

/**
 * The words of `line` with their offsets, split like Python's `shlex.split`: on whitespace,
 * with single or double quotes grouping (an unclosed quote runs to the end of the line).
 */
export function splitWords(line: string): { from: number; to: number; text: string }[] {
  const words: { from: number; to: number; text: string }[] = [];
  let i = 0;
  while (i < line.length) {
    if (/\s/.test(line[i])) {
      i++;
      continue;
    }
    const from = i;
    let text = '';
    while (i < line.length && !/\s/.test(line[i])) {
      const quote = line[i];
      if (quote === '"' || quote === "'") {
        const close = line.indexOf(quote, i + 1);
        const end = close < 0 ? line.length : close;
        text += line.slice(i + 1, end);
        i = close < 0 ? line.length : close + 1;
      } else {
        text += quote;
        i++;
      }
    }
    words.push({ from, to: i, text });
  }
  return words;
}

/** The option `word` names: itself, the one option it is a prefix of, or null. */
export function resolveFlag(word: string): string | null {
  if (word in FLAGS) {
    return word;
  }
  const matches = Object.keys(FLAGS).filter(flag => flag.startsWith(word));
  return word.length > 2 && matches.length === 1 ? matches[0] : null;
}

function valueIsValid(flag: string, value: string): boolean {
  if (flag === '--approve') {
    return APPROVE_CHOICES.includes(value);
  }
  if (flag === '--backend') {
    return BACKEND_CHOICES.includes(value);
  }
  if (flag === '--mode') {
    return MODE_CHOICES.includes(value);
  }
  if (flag === '--replay-tools') {
    return REPLAY_TOOLS_CHOICES.includes(value);
  }
  if (flag === '--max-turns' || flag === '--concurrency') {
    return /^\+?\d+$/.test(value.trim()) && Number(value) >= 1;
  }
  if (flag === '--rpm' || flag === '--tpm') {
    return /^[+-]?\d+$/.test(value.trim());
  }
  if (flag === '--out' || flag === '--over' || flag === '--scorer') {
    return isIdentifier(value);
  }
  return value.length > 0;
}

/** argparse takes a word for an option (not a value) when it starts with `-` and is no number. */
function looksLikeOption(word: string): boolean {
  return word.length > 1 && word.startsWith('-') && !/^-\d/.test(word);
}

function isIdentifier(word: string): boolean {
  return /^[\p{L}_][\p{L}\p{N}_]*$/u.test(word);
}

/**
 * The parts of a `%%agent` line, or null when `line` is not one.
 *
 * Each word is classified as the kernel's parser would take it, so that what the kernel
 * would refuse (an unknown option, a missing or invalid value, a second AGENT) is marked
 * `invalid` while the user types.
 */
export function parseMagicLine(line: string): MagicPart[] | null {
  if (!isMagicLine(line)) {
    return null;
  }
  const parts: MagicPart[] = [
    { kind: 'command', from: 0, to: AGENT_MAGIC.length }
  ];
  const words = splitWords(line.slice(AGENT_MAGIC.length)).map(w => ({
    ...w,
    from: w.from + AGENT_MAGIC.length,
    to: w.to + AGENT_MAGIC.length
  }));
  let agentSeen = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!looksLikeOption(word.text)) {
      const ok = !agentSeen && isIdentifier(word.text);
      agentSeen = true;
      parts.push({ kind: ok ? 'agent' : 'invalid', from: word.from, to: word.to });
      continue;
    }
    const eq = word.text.indexOf('=');
    const name = eq < 0 ? word.text : word.text.slice(0, eq);
    const flag = resolveFlag(name);
    if (flag === null) {
      parts.push({ kind: 'invalid', from: word.from, to: word.to });
      continue;
    }
    if (eq >= 0) {
      // `--out=var`: the offsets of `=` in the raw text equal those in the unquoted text
      // unless the name itself was quoted, which nobody writes.
      const at = word.from + line.slice(word.from, word.to).indexOf('=');
      const ok = FLAGS[flag] === 'value' && valueIsValid(flag, word.text.slice(eq + 1));
      parts.push({ kind: 'flag', from: word.from, to: at });
      parts.push({ kind: ok ? 'value' : 'invalid', from: at + 1, to: word.to });
      continue;
    }
    parts.push({ kind: 'flag', from: word.from, to: word.to });
    if (FLAGS[flag] === 'switch') {
      continue;
    }
    const value = words[i + 1];
    if (value === undefined || looksLikeOption(value.text)) {
      parts[parts.length - 1] = { kind: 'invalid', from: word.from, to: word.to };
      continue;
    }
    i++;
    const ok = valueIsValid(flag, value.text);
    parts.push({ kind: ok ? 'value' : 'invalid', from: value.from, to: value.to });
  }
  return parts;
}

/** A `{expression}` of the prompt, or a brace the kernel would refuse. */
export interface BraceSpan {
  readonly kind: 'expression' | 'invalid';
  /** Offset of the opening brace (of the stray brace, for `invalid`). */
  readonly from: number;
  /** Offset just after the closing brace. */
  readonly to: number;
}

/**
 * The offset of the `}` that closes the `{` at `start` (braces nest, as in `prompt.py`),
 * or -1 when it is not closed before `end`.
 */
export function closingBrace(text: string, start: number, end = text.length): number {
  let depth = 0;
  for (let i = start; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 123 /* { */) {
      depth++;
    } else if (ch === 125 /* } */) {
      depth--;
      if (depth === 0) {
        return i;
      }
    }
  }
  return -1;
}

/**
 * The `{expression}` spans of a prompt (the cell's body), read as the kernel reads them:
 * `{{` and `}}` are literal braces, `{` opens an expression that ends at its matching `}`
 * (it may span lines), and an empty expression, an unclosed `{` or a lone `}` is an error
 * (after an unclosed `{` nothing more is found: the kernel reads the rest as its expression).
 */
export function findExpressions(text: string): BraceSpan[] {
  const spans: BraceSpan[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if ((ch === '{' || ch === '}') && text[i + 1] === ch) {
      i += 2;
    } else if (ch === '{') {
      const end = closingBrace(text, i);
      if (end < 0) {
        // The kernel stops here: the rest of the prompt is inside this expression.
        spans.push({ kind: 'invalid', from: i, to: i + 1 });
        break;
      }
      const empty = text.slice(i + 1, end).trim() === '';
      spans.push({ kind: empty ? 'invalid' : 'expression', from: i, to: end + 1 });
      i = end + 1;
    } else if (ch === '}') {
      spans.push({ kind: 'invalid', from: i, to: i + 1 });
      i++;
    } else {
      i++;
    }
  }
  return spans;
}
