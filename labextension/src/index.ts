/**
 * The jupyter-agents JupyterLab extension: one plugin per feature, each in its own folder.
 */
import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { agentCellPlugin } from './agentcell/plugin';
import { insertPlugin } from './insert/plugin';
import { runsPlugin } from './runs/plugin';
import { transcriptPlugin } from './transcript/plugin';

const plugins: JupyterFrontEndPlugin<any>[] = [
  agentCellPlugin,
  runsPlugin,
  transcriptPlugin,
  insertPlugin
];

export default plugins;
