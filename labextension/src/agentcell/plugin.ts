/**
 * Feature: `%%agent` cells read as prose. Registers the agent-cell editor extension with
 * JupyterLab's editor extension registry, for inline editors (notebook cells, consoles)
 * that are not Markdown already.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import {
  EditorExtensionRegistry,
  IEditorExtensionRegistry,
  IEditorLanguageRegistry
} from '@jupyterlab/codemirror';

import { agentCellExtension, AgentMode } from './editor';
import { loadAgentLanguage } from './language';

/** Editors of these MIME types are Markdown already: left alone. */
const MARKDOWN_MIMES = new Set(['text/x-ipythongfm', 'text/x-markdown', 'text/markdown']);

export const agentCellPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agents:agent-cell',
  description: 'Shows %%agent cells as Markdown prose under a highlighted magic line.',
  autoStart: true,
  requires: [IEditorExtensionRegistry, IEditorLanguageRegistry],
  activate: (
    _app: JupyterFrontEnd,
    extensions: IEditorExtensionRegistry,
    languages: IEditorLanguageRegistry
  ): void => {
    const mode = new AgentMode(() => loadAgentLanguage(languages));
    // Not awaited: startup does not wait for Markdown, and editors opened before it has
    // loaded switch when it has.
    void mode.ensure();
    extensions.addExtension({
      name: 'jupyter-agents:agent-cell',
      factory: options => {
        if (!options.inline || MARKDOWN_MIMES.has(options.model.mimeType)) {
          return null;
        }
        return EditorExtensionRegistry.createImmutableExtension(
          agentCellExtension(mode, options.model.sharedModel.getSource())
        );
      }
    });
  }
};
