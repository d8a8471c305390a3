/**
 * The CodeMirror extension every inline editor (notebook cells, consoles) gets: while the
 * first line is `%%agent`, the editor uses the agent-cell language and shows the magic line
 * as a header; otherwise it stays exactly as JupyterLab made it.
 */
import { Language, syntaxHighlighting } from '@codemirror/language';
import {
  Compartment,
  EditorState,
  Extension,
  Prec,
  RangeSetBuilder,
  Text
} from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  PluginValue,
  ViewPlugin,
  ViewUpdate
} from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';

import {
  findExpressions,
  isAgentSource,
  isMagicLine,
  MagicPartKind,
  parseMagicLine
} from './syntax';

/** CSS classes the extension puts on the editor and its text. */
export const CLASSES = {
  /** On the editor (`.cm-editor`) while it is in agent mode. */
  editor: 'jp-agent-cell',
  /** On the `%%agent` line. */
  magicLine: 'jp-agent-magic-line',
  /** On each word of the magic line, with `jp-agent-magic-<kind>`. */
  magicPart: 'jp-agent-magic',
  /** On each `{expression}`. */
  expression: 'jp-agent-expression',
  /** On a brace the kernel would refuse (unclosed, unmatched, empty). */
  invalidBrace: 'jp-agent-brace-invalid'
} as const;

/** True when `doc` is a `%%agent` cell. */
export function isAgentDoc(doc: Text): boolean {
  return isMagicLine(doc.line(1).text);
}

/**
 * The agent-cell language, loaded on first need. Built once and shared by every editor, so
 * that "is this editor in agent mode" is an identity check on the compartment's content.
 */
export class AgentMode {
  constructor(private readonly load: () => Promise<Language | null>) {}

  /** The extension an editor's compartment holds in agent mode; null until loaded. */
  get extension(): Extension | null {
    return this._extension;
  }

  /** Load the language (once); resolves to the agent-mode extension, null when unavailable. */
  ensure(): Promise<Extension | null> {
    if (!this._loading) {
      this._loading = this.load().then(
        language => {
          this._extension = language ? agentModeExtension(language) : null;
          return this._extension;
        },
        reason => {
          console.warn('jupyter-agents: the Markdown language did not load.', reason);
          return null;
        }
      );
    }
    return this._loading;
  }

  private _extension: Extension | null = null;
  private _loading: Promise<Extension | null> | null = null;
}

/**
 * What agent mode adds: the language, above JupyterLab's own (which stays in its own
 * compartment, so turning agent mode off needs nothing restored), CodeMirror's standard
 * `tok-*` token classes (stable names for CSS and tests), and a class on the editor.
 */
function agentModeExtension(language: Language): Extension {
  return [
    Prec.highest(language.extension),
    syntaxHighlighting(classHighlighter),
    EditorView.editorAttributes.of({ class: CLASSES.editor })
  ];
}

/**
 * The extension for one editor, whose text is `source` when it is created.
 *
 * The compartment is empty unless the editor is in agent mode: the `language` facet must
 * not be provided otherwise, or it would hide JupyterLab's own language (and editors whose
 * language has not loaded yet would have none).
 */
export function agentCellExtension(mode: AgentMode, source: string): Extension {
  const compartment = new Compartment();
  const isOn = (state: EditorState): boolean =>
    mode.extension !== null && compartment.get(state) === mode.extension;
  // Most editors are created after the language has loaded: start in the right mode.
  const initial = mode.extension !== null && isAgentSource(source) ? mode.extension : [];

  // Typing, pasting, undo and collaborators' edits all arrive as transactions.
  const follow = EditorState.transactionExtender.of(tr => {
    if (!tr.docChanged) {
      return null;
    }
    const want = isAgentDoc(tr.newDoc);
    if (want === isOn(tr.startState)) {
      return null;
    }
    const extension = mode.extension;
    if (want && extension === null) {
      return null; // the view plugin loads the language and switches then
    }
    return { effects: compartment.reconfigure(want && extension ? extension : []) };
  });

  // The first agent cell of a session: switch once the language has loaded.
  const loader = ViewPlugin.define(view => {
    let alive = true;
    const check = (): void => {
      if (isAgentDoc(view.state.doc) && !isOn(view.state)) {
        void mode.ensure().then(extension => {
          if (alive && extension && isAgentDoc(view.state.doc) && !isOn(view.state)) {
            view.dispatch({ effects: compartment.reconfigure(extension) });
          }
        });
      }
    };
    check();
    return {
      update(update: ViewUpdate) {
        if (update.docChanged) {
          check();
        }
      },
      destroy() {
        alive = false;
      }
    };
  });

  return [compartment.of(initial), follow, loader, decorations];
}

const magicLineDecoration = Decoration.line({ class: CLASSES.magicLine });
const partDecorations: Record<MagicPartKind, Decoration> = {
  command: partMark('command'),
  agent: partMark('agent'),
  flag: partMark('flag'),
  value: partMark('value'),
  invalid: partMark('invalid')
};
const expressionDecoration = Decoration.mark({ class: CLASSES.expression });
const invalidBraceDecoration = Decoration.mark({ class: CLASSES.invalidBrace });

function partMark(kind: MagicPartKind): Decoration {
  return Decoration.mark({ class: `${CLASSES.magicPart} ${CLASSES.magicPart}-${kind}` });
}

/** The magic line's decorations and the body's `{expression}` marks (none outside agent cells). */
export function agentDecorations(doc: Text): DecorationSet {
  const first = doc.line(1);
  const parts = parseMagicLine(first.text);
  if (parts === null) {
    return Decoration.none;
  }
  const builder = new RangeSetBuilder<Decoration>();
  builder.add(first.from, first.from, magicLineDecoration);
  for (const part of parts) {
    builder.add(first.from + part.from, first.from + part.to, partDecorations[part.kind]);
  }
  if (doc.lines > 1) {
    const bodyStart = first.to + 1;
    for (const span of findExpressions(doc.sliceString(bodyStart))) {
      const mark = span.kind === 'expression' ? expressionDecoration : invalidBraceDecoration;
      builder.add(bodyStart + span.from, bodyStart + span.to, mark);
    }
  }
  return builder.finish();
}

class AgentDecorations implements PluginValue {
  decorations: DecorationSet;

  constructor(view: EditorView) {
    this.decorations = agentDecorations(view.state.doc);
  }

  update(update: ViewUpdate): void {
    if (update.docChanged) {
      this.decorations = agentDecorations(update.state.doc);
    }
  }
}

const decorations = ViewPlugin.fromClass(AgentDecorations, {
  decorations: plugin => plugin.decorations
});
