// @ts-check
// Python code drawn with its keywords, strings, numbers and comments in classed spans (text
// nodes only: the code stays text). Other languages are drawn plain.

const KEYWORDS = new Set(
  ("False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while " +
    "with yield match case").split(" "),
);
const BUILTINS = new Set(
  ("print len range enumerate zip map filter sorted sum min max abs open int float str list " +
    "dict set tuple bool type isinstance super self").split(" "),
);
// Comments, strings (with prefixes, triple-quoted first), numbers, names, anything else.
const TOKEN =
  /(#[^\n]*)|([rbfuRBFU]{0,2}(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?))|(\b\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?\b)|([A-Za-z_]\w*)|([\s\S])/g;

/** `code` as runs of text and the class to draw each with ("" for plain).
 * @param {string} code @param {string} [language] @returns {{text: string, cls: string}[]} */
export function codeRuns(code, language = "python") {
  if (language !== "python") return [{ text: code, cls: "" }];
  /** @type {{text: string, cls: string}[]} */
  const runs = [];
  /** @param {string} text @param {string} cls */
  const push = (text, cls) => {
    const last = runs[runs.length - 1];
    if (last && last.cls === cls) last.text += text;
    else runs.push({ text, cls });
  };
  for (const m of code.matchAll(TOKEN)) {
    if (m[1]) push(m[1], "ja-py-com");
    else if (m[2]) push(m[2], "ja-py-str");
    else if (m[3]) push(m[3], "ja-py-num");
    else if (m[4]) push(m[4], KEYWORDS.has(m[4]) ? "ja-py-kw" : BUILTINS.has(m[4]) ? "ja-py-fn" : "");
    else push(m[0], "");
  }
  return runs;
}
