/**
 * The jupyter-agents JupyterLab extension. This module only lists the plugins: each feature
 * is a folder under src/ whose plugin.ts exports one plugin, added to the list below.
 */
import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { agentCellPlugin } from './agentcell/plugin';
import { assistPlugin } from './assist/plugin';
import { chatPlugin } from './chat/plugin';
import { documentPlugin } from './document/plugin';
import { insertPlugin } from './insert/plugin';
import { runLivePlugin } from './runlive/plugin';
import { runsPlugin } from './runs/plugin';
import { savedFormsPlugin } from './savedforms/plugin';
import { transcriptPlugin } from './transcript/plugin';

const plugins: JupyterFrontEndPlugin<unknown>[] = [
  agentCellPlugin,
  runsPlugin,
  transcriptPlugin,
  insertPlugin,
  runLivePlugin,
  documentPlugin,
  savedFormsPlugin,
  chatPlugin,
  assistPlugin
];

export default plugins;
