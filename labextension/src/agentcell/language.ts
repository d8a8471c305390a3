/**
 * The language of a `%%agent` cell: JupyterLab's own Markdown (the one Markdown cells use),
 * extended so that the magic line is its own block instead of the start of a paragraph, and
 * `{expression}` spans are parsed as Python.
 */
import { Language } from '@codemirror/language';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { parseMixed, Parser } from '@lezer/common';
import { tags } from '@lezer/highlight';
import type {
  BlockContext,
  InlineContext,
  Line,
  MarkdownConfig,
  MarkdownParser
} from '@lezer/markdown';

import { closingBrace, isMagicLine } from './syntax';

/** MIME types tried, in order, for the Markdown of the body: Markdown cells' own first. */
const MARKDOWN_MIMES = ['text/x-ipythongfm', 'text/x-markdown'];
/** MIME types tried, in order, for the `{expression}` spans. */
const PYTHON_MIMES = ['text/x-ipython', 'text/x-python'];

const OPEN_BRACE = 123;

/** Syntax node names this language adds to Markdown's. */
export const NODES = {
  magic: 'AgentMagic',
  expression: 'AgentExpression',
  brace: 'AgentExpressionBrace',
  code: 'AgentExpressionCode'
} as const;

/** The `%%agent` line, when it is the document's first line, as one leaf block. */
function parseMagicBlock(cx: BlockContext, line: Line): boolean {
  if (cx.lineStart !== 0 || !isMagicLine(line.text)) {
    return false;
  }
  cx.addElement(cx.elt(NODES.magic, cx.lineStart, cx.lineStart + line.text.length));
  cx.nextLine();
  return true;
}

/** `{expression}` inside inline text; `{{` is a literal brace and stays text. */
function parseExpression(cx: InlineContext, next: number, pos: number): number {
  if (next !== OPEN_BRACE) {
    return -1;
  }
  if (cx.char(pos + 1) === OPEN_BRACE) {
    return pos + 2;
  }
  const close = closingBrace(cx.text, pos - cx.offset);
  if (close < 0) {
    return -1;
  }
  const end = close + cx.offset;
  return cx.addElement(
    cx.elt(NODES.expression, pos, end + 1, [
      cx.elt(NODES.brace, pos, pos + 1),
      cx.elt(NODES.code, pos + 1, end),
      cx.elt(NODES.brace, end, end + 1)
    ])
  );
}

/** The Markdown extension for agent cells; `python` parses the expressions when given. */
export function agentMarkdownConfig(python: Parser | null): MarkdownConfig {
  return {
    defineNodes: [
      // No highlighting tag: the editor's decorations colour the magic line word by word.
      { name: NODES.magic, block: true },
      { name: NODES.expression },
      { name: NODES.brace, style: tags.brace },
      { name: NODES.code }
    ],
    parseBlock: [{ name: NODES.magic, parse: parseMagicBlock, before: 'LinkReference' }],
    parseInline: [{ name: NODES.expression, parse: parseExpression, before: 'Escape' }],
    wrap: python
      ? parseMixed(node => (node.name === NODES.code ? { parser: python } : null))
      : undefined
  };
}

function isMarkdownParser(parser: Parser): parser is MarkdownParser {
  return typeof (parser as Partial<MarkdownParser>).configure === 'function';
}

/**
 * The agent-cell language built on `markdown`; `markdown` itself when its parser is not a
 * Markdown parser that can be extended (then only the extension's decorations mark the
 * magic line and the expressions).
 */
export function agentLanguage(markdown: Language, python: Language | null): Language {
  const parser = markdown.parser;
  if (!isMarkdownParser(parser)) {
    return markdown;
  }
  const extended = parser.configure(agentMarkdownConfig(python?.parser ?? null));
  return new Language(markdown.data, extended, [], 'agent-markdown');
}

async function firstLanguage(
  registry: IEditorLanguageRegistry,
  mimes: readonly string[]
): Promise<Language | null> {
  for (const mime of mimes) {
    const spec = registry.findByMIME(mime);
    if (!spec) {
      continue;
    }
    const loaded = await registry.getLanguage(spec);
    if (loaded?.support) {
      return loaded.support.language;
    }
  }
  return null;
}

/** Load JupyterLab's Markdown and Python and build the agent-cell language (null: no Markdown). */
export async function loadAgentLanguage(
  registry: IEditorLanguageRegistry
): Promise<Language | null> {
  const [markdown, python] = await Promise.all([
    firstLanguage(registry, MARKDOWN_MIMES),
    firstLanguage(registry, PYTHON_MIMES)
  ]);
  return markdown ? agentLanguage(markdown, python) : null;
}
