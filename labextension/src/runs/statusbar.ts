/** The status bar item: "2 running · 1 waiting"; a click opens the runs panel. */
import { Widget } from '@lumino/widgets';

import { RunsModel } from './model';
import { countRuns, statusText } from './summary';

export class RunsStatus extends Widget {
  constructor(
    private readonly _model: RunsModel,
    open: () => void
  ) {
    super();
    this.addClass('ja-runs-status');
    this.node.title = 'Agent runs: click to open the panel';
    this.node.onclick = open;
    _model.changed.connect(() => this.update(), this);
    this.update();
  }

  /** Whether there is anything to show (the item hides itself otherwise). */
  get active(): boolean {
    return countRuns(this._model.runs()).running > 0;
  }

  protected onUpdateRequest(): void {
    const counts = countRuns(this._model.runs());
    this.node.textContent = statusText(counts);
    this.node.classList.toggle('ja-runs-waiting', counts.waiting > 0);
  }
}
