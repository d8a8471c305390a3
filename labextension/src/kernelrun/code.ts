/**
 * Python source that calls one function of ours with a JSON payload, never splicing text into
 * the source: the payload is JSON, every character past ASCII escaped as `\uXXXX` (which JSON
 * reads back exactly, surrogate pairs included), and that ASCII text becomes one Python string
 * literal whose only escapes are `\\` and `\"`. A message holding quotes, newlines, `"""`,
 * backslashes, `{` or `%` arrives as it was written.
 */

/** `value` as JSON text of ASCII characters only. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')
  );
}

/** `text` (ASCII) as a Python string literal. */
export function pythonString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) {
    throw new Error('pythonString takes printable ASCII only (use asciiJson first)');
  }
  return '"' + text.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

/** A module path or function name: dotted Python names only (they are written into code). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * `await module.fn("<payload as JSON>")`, importing the module where it runs (no name is added
 * to the user's namespace).
 */
export function awaitCall(module: string, fn: string, payload: unknown): string {
  if (!NAME.test(module) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(fn)) {
    throw new Error(`not a Python name: ${module}.${fn}`);
  }
  const imported = `__import__(${pythonString(module)}, fromlist=["_"])`;
  return `await ${imported}.${fn}(${pythonString(asciiJson(payload))})`;
}
