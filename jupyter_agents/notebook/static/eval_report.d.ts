/** Types of the evaluation report widget's ES module (built from labextension/src/evalreport),
 * for the lab extension, which draws saved reports with it. */
export interface ReportModel {
  get(key: string): unknown;
  on(event: string, callback: (...args: unknown[]) => void): void;
  off(event: string, callback: (...args: unknown[]) => void): void;
}

declare const widget: {
  render(context: { model: ReportModel; el: HTMLElement }): () => void;
};
export default widget;
