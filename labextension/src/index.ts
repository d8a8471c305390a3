/**
 * The jupyter-agents JupyterLab extension: one plugin per feature, each in its own folder.
 */
import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { agentCellPlugin } from './agentcell/plugin';

const plugins: JupyterFrontEndPlugin<any>[] = [agentCellPlugin];

export default plugins;
