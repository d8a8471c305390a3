/** Types of the run widget's ES module (built from labextension/src/widget), for the lab extension. */
export interface WidgetModel {
  get(key: string): unknown;
  on(event: string, callback: (...args: unknown[]) => void): void;
  off(event: string, callback: (...args: unknown[]) => void): void;
  send(message: object): void;
}

declare const widget: {
  render(context: { model: WidgetModel; el: HTMLElement }): () => void;
};
export default widget;
